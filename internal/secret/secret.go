// Package secret detects credentials in text. gloss refuses memory text
// that contains one: memories are shown in hovers, mirrored to
// .gloss/memories files that are committed, and sent to agents.
//
// The token rules (tokenRules) follow the public formats of each issuer.
// Many are ported from the default rule set of gitleaks
// (https://github.com/gitleaks/gitleaks, config/gitleaks.toml, MIT licence,
// Copyright (c) 2019 Zachary Rice), simplified to Go's RE2 syntax and to
// whole-token matches; the assignment, connection string and bearer rules
// and the placeholder filter are gloss's own.
//
// Before matching, text is normalized against obfuscation (normalize):
// zero-width characters are removed and the text is NFKC-folded, so
// fullwidth "ｇｈｐ＿…" is "ghp_…". Token rules also run over a copy in which
// line breaks between two token characters are removed, which finds a
// token split over lines.
package secret

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/internal/ident"
	"golang.org/x/text/unicode/norm"
)

// secretRule is one detector.
type secretRule struct {
	name string
	re   *regexp.Regexp
	// check, when set, decides from the submatches whether a match is a
	// credential rather than an example, a reference or prose.
	check func(m []string) bool
}

// tokenRules detect credentials by their issuer's format. They need no
// context (no "key=" before them), so they also run over the line-joined
// text. Both rule lists are compiled at first use, not at the start of
// every gloss process.
var tokenRules = sync.OnceValue(func() []secretRule {
	return []secretRule{
		{name: "private key", re: regexp.MustCompile(`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)},
		{name: "AWS access key id", re: regexp.MustCompile(`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`)},
		{name: "GitHub token", re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})`)},
		{name: "GitLab token", re: regexp.MustCompile(`\b(?:glpat|glptt|gldt|glrt|glcbt|glimt|glsoat|glffct|gloas)-[A-Za-z0-9_-]{20,}`)},
		{name: "GitLab runner token", re: regexp.MustCompile(`\bGR1348941[A-Za-z0-9_-]{20,}`)},
		{name: "Slack token", re: regexp.MustCompile(`\bxox[abposre]-(?:\d+-)?[A-Za-z0-9-]{10,}`)},
		{name: "Slack app token", re: regexp.MustCompile(`\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`)},
		{name: "Slack webhook", re: regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}`)},
		{name: "Discord webhook", re: regexp.MustCompile(`discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}`)},
		{name: "npm token", re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
		{name: "PyPI token", re: regexp.MustCompile(`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`)},
		{name: "SendGrid API key", re: regexp.MustCompile(`\bSG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{39,50}\b`)},
		{name: "Azure storage account key", re: regexp.MustCompile(`(?i)AccountKey\s*=\s*[A-Za-z0-9+/]{40,}={0,2}`)},
		{name: "Azure SAS token", re: regexp.MustCompile(`[?&]sig=[A-Za-z0-9%+/]{30,}={0,2}`)},
		{name: "Azure AD client secret", re: regexp.MustCompile(`(?:^|[^A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?:$|[^A-Za-z0-9_~.-])`)},
		{name: "Google API key", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
		{name: "Google OAuth client secret", re: regexp.MustCompile(`\bGOCSPX-[A-Za-z0-9_-]{28}`)},
		{name: "Google OAuth access token", re: regexp.MustCompile(`\bya29\.[0-9A-Za-z_-]{30,}`)},
		{name: "GCP service account key", re: regexp.MustCompile(`"private_key_id"\s*:\s*"[a-f0-9]{40}"`)},
		{name: "Stripe key", re: regexp.MustCompile(`\b(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{20,}`)},
		{name: "Stripe webhook secret", re: regexp.MustCompile(`\bwhsec_[0-9A-Za-z]{24,}`)},
		{name: "Anthropic API key", re: regexp.MustCompile(`\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}`)},
		{name: "OpenAI API key", re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{32,}`)},
		{name: "Hugging Face token", re: regexp.MustCompile(`\bhf_[A-Za-z]{34}\b`)},
		{name: "DigitalOcean token", re: regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}\b`)},
		{name: "Shopify token", re: regexp.MustCompile(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`)},
		{name: "Twilio API key", re: regexp.MustCompile(`\bSK[0-9a-fA-F]{32}\b`)},
		{name: "Mailgun API key", re: regexp.MustCompile(`\bkey-[0-9a-z]{32}\b`)},
		{name: "Mailchimp API key", re: regexp.MustCompile(`\b[0-9a-f]{32}-us\d{1,2}\b`)},
		{name: "Square token", re: regexp.MustCompile(`\b(?:sq0atp|sq0csp|EAAA)[0-9A-Za-z_-]{22,60}`)},
		{name: "Docker Hub token", re: regexp.MustCompile(`\bdckr_pat_[A-Za-z0-9_-]{27,}`)},
		{name: "HashiCorp Vault token", re: regexp.MustCompile(`\bhv[sb]\.[A-Za-z0-9_-]{24,}`)},
		{name: "Terraform Cloud token", re: regexp.MustCompile(`\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}`)},
		{name: "Atlassian API token", re: regexp.MustCompile(`\bATATT3[A-Za-z0-9_=-]{150,}`)},
		{name: "Databricks token", re: regexp.MustCompile(`\bdapi[a-f0-9]{32}(?:-\d)?\b`)},
		{name: "Doppler token", re: regexp.MustCompile(`\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}`)},
		{name: "Grafana token", re: regexp.MustCompile(`\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})`)},
		{name: "Linear API key", re: regexp.MustCompile(`\blin_api_[A-Za-z0-9]{40}\b`)},
		{name: "Postman API key", re: regexp.MustCompile(`\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`)},
		{name: "Pulumi token", re: regexp.MustCompile(`\bpul-[a-f0-9]{40}\b`)},
		{name: "Sentry token", re: regexp.MustCompile(`\bsntry[su]_[A-Za-z0-9+/=_-]{40,}`)},
		{name: "Telegram bot token", re: regexp.MustCompile(`\b\d{8,10}:AA[A-Za-z0-9_-]{32,33}\b`)},
		{name: "age secret key", re: regexp.MustCompile(`\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`)},
		{name: "JSON web token", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
	}
})

// anyToken is the alternation of every token rule: it matches a text iff
// one of tokenRules does (RE2 alternation), in one pass over the text
// instead of one per rule, so Find tries the rules one by one (for the
// name of the first that matches) only when one does. Most texts match
// none.
var anyToken = sync.OnceValue(func() *regexp.Regexp {
	var parts []string
	for _, r := range tokenRules() {
		parts = append(parts, "(?:"+r.re.String()+")")
	}
	return regexp.MustCompile(strings.Join(parts, "|"))
})

// firstToken returns the name of the first token rule matching text, ""
// when none does.
func firstToken(text string) string {
	if !anyToken().MatchString(text) {
		return ""
	}
	for _, r := range tokenRules() {
		if r.re.MatchString(text) {
			return r.name
		}
	}
	return ""
}

// contextRules need the surrounding text (a key name, a URL) and run over
// the normalized text only.
var contextRules = sync.OnceValue(func() []secretRule {
	return []secretRule{
		// scheme://user:password@host, for any scheme (postgres, mysql,
		// mongodb+srv, redis, amqp, ftp, https, …).
		{name: "password in a connection string", check: func(m []string) bool { return looksSecret(m[1], 3, false) },
			re: regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@"'<>]*:([^\s@/"'<>]{3,})@[A-Za-z0-9\[]`)},
		// Password=...; in ADO.NET / JDBC style connection strings.
		// The key must be next to a ";" (before it or after the value).
		{name: "password in a connection string", check: func(m []string) bool { return looksSecret(m[1]+m[2], 4, false) && !strings.Contains(m[1]+m[2], "(") },
			re: regexp.MustCompile(`(?i);\s*(?:password|pwd)\s*=\s*([^;\s"']{4,})|(?:^|[\s"'])(?:password|pwd)\s*=\s*([^;\s"']{4,})\s*;`)},
		// key = value, key: value, key := value, key => value, "key": "value",
		// where the key names a credential. The key may be prefixed
		// (DB_PASSWORD, aws_secret_access_key); \b cannot be used before the
		// word because "_" is a word character.
		{name: "password or secret assignment", check: assignmentIsSecret, re: regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|private[_-]?key|access[_-]?key|auth[_-]?key|license[_-]?key|credentials?)[A-Za-z0-9_.-]*)(["']?\s*(?::=|=>|==|=|:)\s*)((?:"[^"\n]*"|'[^'\n]*'|` + "`[^`\\n]*`" + `|[^\s,;]+))`)},
		// Authorization: Bearer / Basic credentials.
		{name: "authorization header credential", check: func(m []string) bool {
			return looksSecret(m[1], 20, true) && (hasDigitAndLetter(m[1]) || mixedCaseLong(m[1]))
		}, re: regexp.MustCompile(`(?i)\b(?:bearer|token)\s+([A-Za-z0-9._~+/-]{20,}={0,2})`)},
		// Basic credentials: base64 of "user:password".
		{name: "authorization header credential", check: basicIsSecret,
			re: regexp.MustCompile(`(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})`)},
		// <password>value</password> in XML configuration.
		{name: "password or secret in XML", check: func(m []string) bool { return looksSecret(m[2], 6, false) },
			re: regexp.MustCompile(`(?i)<([A-Za-z0-9_.:-]*(?:password|passwd|secret|token|api[_-]?key|apikey)[A-Za-z0-9_.-]*)>([^<\s]{6,})</`)},
		// .netrc: machine HOST login USER password PASSWORD.
		{name: "password in a .netrc entry", check: func(m []string) bool { return looksSecret(m[1], 4, false) },
			re: regexp.MustCompile(`(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S+)`)},
	}
})

// basicIsSecret decodes a Basic authorization credential: base64 of
// "user:password" with a password that is not a placeholder.
func basicIsSecret(m []string) bool {
	dec, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		dec, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(m[1], "="))
	}
	if err != nil || !utf8.Valid(dec) {
		return false
	}
	_, pw, ok := strings.Cut(string(dec), ":")
	return ok && looksSecret(pw, 4, false)
}

// zeroWidth are removed before scanning: they are invisible and split a
// token for a regular expression.
var zeroWidth = strings.NewReplacer("\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "", "\u00ad", "", "\u180e", "")

// lineBreakInToken matches a line break (with indentation) between two
// characters that occur in tokens.
var lineBreakInToken = regexp.MustCompile(`([A-Za-z0-9_+/=.-])[ \t]*\r?\n[ \t]*([A-Za-z0-9_+/=.-])`)

// normalize removes zero-width characters and NFKC-folds text
// (fullwidth letters, ligatures and other compatibility forms become their
// ASCII equivalents).
func normalize(text string) string {
	return norm.NFKC.String(zeroWidth.Replace(text))
}

// joinTokenLines removes line breaks between token characters, joining a
// token that was split over lines.
func joinTokenLines(text string) string {
	if !strings.Contains(text, "\n") {
		return text
	}
	// Twice: a match consumes the characters on both sides of a break, so
	// breaks one character apart need a second pass.
	for i := 0; i < 2; i++ {
		text = lineBreakInToken.ReplaceAllString(text, "$1$2")
	}
	return text
}

// Find returns the kind of credential found in text ("" when none), such
// as "GitHub token" or "password assignment".
func Find(text string) string {
	n := normalize(text)
	if name := firstToken(n); name != "" {
		return name
	}
	for _, r := range contextRules() {
		for _, m := range r.re.FindAllStringSubmatch(n, -1) {
			if r.check == nil || r.check(m) {
				return r.name
			}
		}
	}
	if j := joinTokenLines(n); j != n {
		if name := firstToken(j); name != "" {
			return name + " (split over lines)"
		}
	}
	return ""
}

// Check returns an error naming the kind of credential found in
// text, or nil. gloss refuses such text instead of storing it.
func Check(text string) error {
	if kind := Find(text); kind != "" {
		return fmt.Errorf("refused: the text looks like it contains a %s; remove the secret and try again", kind)
	}
	return nil
}

// placeholderWords mark a value as an example rather than a credential
// when the value contains one of them (compared in lower case).
var placeholderWords = []string{
	"your", "example", "placeholder", "changeme", "change_me", "change-me", "replace",
	"redacted", "dummy", "sample", "xxxx", "****", "....", "…", "todo", "fixme", "insert",
	"<", ">", "${", "{{", "}}", "%(", "getenv", "environ", "process.env", "env[", "env(",
	"secretkeyref", "valuefrom", "vault:", "ssm:", "arn:aws",
}

// notSecretValues are whole values that name a type, a keyword or a field
// rather than hold a credential.
var notSecretValues = map[string]bool{
	"string": true, "str": true, "bytes": true, "[]byte": true, "number": true, "int": true,
	"boolean": true, "bool": true, "true": true, "false": true, "null": true, "nil": true,
	"none": true, "undefined": true, "required": true, "optional": true, "empty": true,
	"hidden": true, "secret": true, "password": true, "token": true, "masked": true,
	"text": true, "any": true, "object": true, "unknown": true, "function": true,
}

// identPath matches code references such as cfg.Password, os.Args[1],
// r.Header.Get or plain identifiers.
var identPath = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|->)[A-Za-z_$][A-Za-z0-9_$]*)*(?:\[[^\]]*\])?(?:\(.*)?[;,)]*$`)

// metadataWords end credential-like key names that describe a credential
// rather than hold one (secret_name, tokenType, password_min_length,
// private_key_path).
var metadataWords = map[string]bool{
	"name": true, "type": true, "ttl": true, "length": true, "len": true, "count": true,
	"size": true, "file": true, "path": true, "dir": true, "url": true, "uri": true,
	"endpoint": true, "id": true, "field": true, "policy": true, "expiry": true,
	"expires": true, "expiration": true, "timeout": true, "header": true, "prefix": true,
	"env": true, "var": true, "min": true, "max": true, "limit": true, "regex": true,
	"pattern": true, "version": true, "format": true, "mode": true, "enabled": true,
	"required": true, "label": true, "hint": true, "placeholder": true, "kind": true,
	"ref": true, "arn": true, "location": true, "hash": true, "algorithm": true,
	"provider": true, "store": true, "manager": true, "source": true, "usage": true,
	"hasher": true, "hashers": true, "validator": true, "validators": true, "rotation": true,
}

// assignmentIsSecret decides a "key = value" match (m[1] the key, m[2] the
// value).
func assignmentIsSecret(m []string) bool {
	words := strings.Fields(ident.Split(m[1]))
	if len(words) > 0 && metadataWords[words[len(words)-1]] {
		return false
	}
	v := m[3]
	if len(v) >= 2 && strings.ContainsRune("\"'`", rune(v[0])) && v[len(v)-1] == v[0] {
		return looksSecret(v[1:len(v)-1], 6, false)
	}
	if m[2] == "=" && envName.MatchString(m[1]) {
		// NAME=value as in .env files and shells: the value is literal.
		return looksSecret(v, 6, false) && !strings.ContainsAny(v[:1], "$%&*@/.~!")
	}
	return looksSecret(v, 8, true)
}

// envName matches environment variable names (DB_PASSWORD).
var envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// looksSecret reports whether a matched value can be a credential rather
// than an example (<your-password>, ${DB_PASSWORD}, xxx, changeme,
// ********), a type or keyword (string, null), prose (it has spaces) or
// something shorter than minLen. unquoted applies the rules for values
// written without quotes, which in code are mostly references
// (os.Getenv("PW"), req.Header.Get(...), cfg.Token): such a value must
// look random, with letters and digits, symbols, or mixed case.
func looksSecret(v string, minLen int, unquoted bool) bool {
	v = strings.TrimRight(v, ";,)}")
	lv := strings.ToLower(v)
	if len(v) < minLen || notSecretValues[lv] || uniform(v) || strings.ContainsAny(v, " \t") || strings.HasPrefix(v, "$") {
		return false
	}
	for _, w := range placeholderWords {
		if strings.Contains(lv, w) {
			return false
		}
	}
	if !unquoted {
		return true
	}
	if strings.ContainsAny(v[:1], "$%&*@/.~![{") || strings.Contains(v, "(") {
		return false
	}
	if identPath.MatchString(v) && !hasDigitAndLetter(v) {
		// An identifier or selector (cfg.Token, newToken) in code.
		return false
	}
	return hasDigitAndLetter(v) || strings.ContainsAny(v, "!#%^*+=?~-_@") || mixedCaseLong(v)
}

// uniform reports whether v repeats one character (xxxxxx, 000000).
func uniform(v string) bool {
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			return false
		}
	}
	return true
}

func hasDigitAndLetter(v string) bool {
	d := strings.IndexFunc(v, unicode.IsDigit) >= 0
	l := strings.IndexFunc(v, unicode.IsLetter) >= 0
	return d && l
}

// mixedCaseLong reports a value of 12 or more characters with both upper-
// and lower-case letters, not in camelCase identifier shape.
func mixedCaseLong(v string) bool {
	if len(v) < 12 {
		return false
	}
	up, low := 0, 0
	for _, r := range v {
		switch {
		case unicode.IsUpper(r):
			up++
		case unicode.IsLower(r):
			low++
		}
	}
	return up >= 3 && low >= 3
}
