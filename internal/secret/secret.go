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
	// keywords are lower-case literals of which every match of re
	// contains at least one, compared case-insensitively (fold): re runs
	// only over a text that contains one, as gitleaks's rule keywords
	// (https://github.com/gitleaks/gitleaks, "keywords" in
	// config/gitleaks.toml). A rule without keywords always runs.
	keywords []string
	// check, when set, decides from the submatches whether a match is a
	// credential rather than an example, a reference or prose.
	check func(m []string) bool
	// pre, when set, is a condition every text re matches meets, checked
	// on the folded text (fold) before re runs, cheaper than re.
	pre func(lower string) bool
}

// tokenRules detect credentials by their issuer's format. They need no
// context (no "key=" before them), so they also run over the line-joined
// text. Both rule lists are compiled at first use, not at the start of
// every gloss process.
var tokenRules = sync.OnceValue(func() []secretRule {
	return []secretRule{
		{name: "private key", keywords: []string{"private key"}, re: regexp.MustCompile(`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)},
		{name: "AWS access key id", keywords: []string{"a3t", "akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "aipa"}, re: regexp.MustCompile(`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`)},
		{name: "GitHub token", keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})`)},
		{name: "GitLab token", keywords: []string{"glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glimt-", "glsoat-", "glffct-", "gloas-"}, re: regexp.MustCompile(`\b(?:glpat|glptt|gldt|glrt|glcbt|glimt|glsoat|glffct|gloas)-[A-Za-z0-9_-]{20,}`)},
		{name: "GitLab runner token", keywords: []string{"gr1348941"}, re: regexp.MustCompile(`\bGR1348941[A-Za-z0-9_-]{20,}`)},
		{name: "Slack token", keywords: []string{"xox"}, re: regexp.MustCompile(`\bxox[abposre]-(?:\d+-)?[A-Za-z0-9-]{10,}`)},
		{name: "Slack app token", keywords: []string{"xapp-"}, re: regexp.MustCompile(`\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`)},
		{name: "Slack webhook", keywords: []string{"hooks.slack.com/"}, re: regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}`)},
		{name: "Discord webhook", keywords: []string{"/api/webhooks/"}, re: regexp.MustCompile(`discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}`)},
		{name: "npm token", keywords: []string{"npm_"}, re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
		{name: "PyPI token", keywords: []string{"pypi-"}, re: regexp.MustCompile(`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`)},
		{name: "SendGrid API key", keywords: []string{"sg."}, re: regexp.MustCompile(`\bSG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{39,50}\b`)},
		{name: "Azure storage account key", keywords: []string{"accountkey"}, re: regexp.MustCompile(`(?i)AccountKey\s*=\s*[A-Za-z0-9+/]{40,}={0,2}`)},
		{name: "Azure SAS token", keywords: []string{"sig="}, re: regexp.MustCompile(`[?&]sig=[A-Za-z0-9%+/]{30,}={0,2}`)},
		{name: "Azure AD client secret", keywords: []string{"q~"}, re: regexp.MustCompile(`(?:^|[^A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?:$|[^A-Za-z0-9_~.-])`)},
		{name: "Google API key", keywords: []string{"aiza"}, re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
		{name: "Google OAuth client secret", keywords: []string{"gocspx-"}, re: regexp.MustCompile(`\bGOCSPX-[A-Za-z0-9_-]{28}`)},
		{name: "Google OAuth access token", keywords: []string{"ya29."}, re: regexp.MustCompile(`\bya29\.[0-9A-Za-z_-]{30,}`)},
		{name: "GCP service account key", keywords: []string{"private_key_id"}, re: regexp.MustCompile(`"private_key_id"\s*:\s*"[a-f0-9]{40}"`)},
		{name: "Stripe key", keywords: []string{"_live_", "_test_", "_prod_"}, re: regexp.MustCompile(`\b(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{20,}`)},
		{name: "Stripe webhook secret", keywords: []string{"whsec_"}, re: regexp.MustCompile(`\bwhsec_[0-9A-Za-z]{24,}`)},
		{name: "Anthropic API key", keywords: []string{"sk-ant-"}, re: regexp.MustCompile(`\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}`)},
		{name: "OpenAI API key", keywords: []string{"sk-"}, re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{32,}`)},
		{name: "Hugging Face token", keywords: []string{"hf_"}, re: regexp.MustCompile(`\bhf_[A-Za-z]{34}\b`)},
		{name: "DigitalOcean token", keywords: []string{"_v1_"}, re: regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}\b`)},
		{name: "Shopify token", keywords: []string{"shp"}, re: regexp.MustCompile(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`)},
		{name: "Twilio API key", keywords: []string{"sk"}, re: regexp.MustCompile(`\bSK[0-9a-fA-F]{32}\b`)},
		{name: "Mailgun API key", keywords: []string{"key-"}, re: regexp.MustCompile(`\bkey-[0-9a-z]{32}\b`)},
		{name: "Mailchimp API key", keywords: []string{"-us"}, re: regexp.MustCompile(`\b[0-9a-f]{32}-us\d{1,2}\b`)},
		{name: "Square token", keywords: []string{"sq0atp", "sq0csp", "eaaa"}, re: regexp.MustCompile(`\b(?:sq0atp|sq0csp|EAAA)[0-9A-Za-z_-]{22,60}`)},
		{name: "Docker Hub token", keywords: []string{"dckr_pat_"}, re: regexp.MustCompile(`\bdckr_pat_[A-Za-z0-9_-]{27,}`)},
		{name: "HashiCorp Vault token", keywords: []string{"hvs.", "hvb."}, re: regexp.MustCompile(`\bhv[sb]\.[A-Za-z0-9_-]{24,}`)},
		{name: "Terraform Cloud token", keywords: []string{".atlasv1."}, re: regexp.MustCompile(`\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}`)},
		{name: "Atlassian API token", keywords: []string{"atatt3"}, re: regexp.MustCompile(`\bATATT3[A-Za-z0-9_=-]{150,}`)},
		{name: "Databricks token", keywords: []string{"dapi"}, re: regexp.MustCompile(`\bdapi[a-f0-9]{32}(?:-\d)?\b`)},
		{name: "Doppler token", keywords: []string{"dp."}, re: regexp.MustCompile(`\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}`)},
		{name: "Grafana token", keywords: []string{"glsa_", "glc_"}, re: regexp.MustCompile(`\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})`)},
		{name: "Linear API key", keywords: []string{"lin_api_"}, re: regexp.MustCompile(`\blin_api_[A-Za-z0-9]{40}\b`)},
		{name: "Postman API key", keywords: []string{"pmak-"}, re: regexp.MustCompile(`\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`)},
		{name: "Pulumi token", keywords: []string{"pul-"}, re: regexp.MustCompile(`\bpul-[a-f0-9]{40}\b`)},
		{name: "Sentry token", keywords: []string{"sntry"}, re: regexp.MustCompile(`\bsntry[su]_[A-Za-z0-9+/=_-]{40,}`)},
		{name: "Telegram bot token", keywords: []string{":aa"}, re: regexp.MustCompile(`\b\d{8,10}:AA[A-Za-z0-9_-]{32,33}\b`)},
		{name: "age secret key", keywords: []string{"age-secret-key-1"}, re: regexp.MustCompile(`\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`)},
		{name: "JSON web token", keywords: []string{"eyj"}, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
	}
})

// anyToken is the alternation of every token rule: it matches a text iff
// one of tokenRules does (RE2 alternation), in one pass over the text
// instead of one per rule. firstToken uses it when the keyword prefilter
// admits many rules, so that a text matching none is still rejected in
// one pass.
var anyToken = sync.OnceValue(func() *regexp.Regexp {
	var parts []string
	for _, r := range tokenRules() {
		parts = append(parts, "(?:"+r.re.String()+")")
	}
	return regexp.MustCompile(strings.Join(parts, "|"))
})

// manyCandidates is the number of admitted token rules from which
// firstToken first tries the alternation anyToken rather than each rule.
const manyCandidates = 4

// fold lower-cases text for the keyword prefilter so that a text
// matching a rule's case-insensitive regexp contains one of its keywords:
// Unicode lower case, plus the two non-ASCII letters whose simple case
// folding is ASCII (U+017F LONG S folds to s, U+212A KELVIN SIGN to k;
// Go's (?i) uses simple folding, regexp/syntax). normalize's NFKC already
// maps both; fold does not rely on it.
func fold(text string) string {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return strings.Map(func(r rune) rune {
				switch r {
				case '\u017f':
					return 's'
				case '\u212a':
					return 'k'
				}
				return unicode.ToLower(r)
			}, text)
		}
	}
	return strings.ToLower(text)
}

// keywordSet is a set of the keywords of every rule (token and context),
// by their number in ruleKeywords.
type keywordSet [2]uint64

// ruleKeywordTable numbers the keywords of every rule: the keywords
// (deduplicated, at most 128, each of at least two bytes), the numbers
// of those starting with each byte, and each rule's keywords as a set
// (token rules first, then context rules, in their order).
type ruleKeywordTable struct {
	words   []string
	byFirst [256][]uint8
	token   []keywordSet
	context []keywordSet
}

var ruleKeywords = sync.OnceValue(func() *ruleKeywordTable {
	t := &ruleKeywordTable{}
	num := map[string]int{}
	set := func(rules []secretRule) []keywordSet {
		out := make([]keywordSet, len(rules))
		for i, r := range rules {
			for _, k := range r.keywords {
				n, ok := num[k]
				if !ok {
					if len(k) < 2 || len(t.words) == 128 {
						panic("secret: keyword " + k + " too short or too many keywords")
					}
					n = len(t.words)
					num[k] = n
					t.words = append(t.words, k)
					t.byFirst[k[0]] = append(t.byFirst[k[0]], uint8(n))
				}
				out[i][n/64] |= 1 << (n % 64)
			}
		}
		return out
	}
	t.token = set(tokenRules())
	t.context = set(contextRules())
	return t
})

// keywordsIn returns the set of the rules' keywords that occur in the
// folded text lower: the same as strings.Contains(lower, k) for each
// keyword k (TestKeywordsInSameAsContains), in one pass over lower.
func keywordsIn(lower string) keywordSet {
	t := ruleKeywords()
	var found keywordSet
	for i := 0; i+1 < len(lower); i++ {
		for _, n := range t.byFirst[lower[i]] {
			k := t.words[n]
			if k[1] == lower[i+1] && strings.HasPrefix(lower[i:], k) {
				found[n/64] |= 1 << (n % 64)
			}
		}
	}
	return found
}

// admitted reports whether a rule of keywords kw (ruleKeywordTable) runs
// over a text of keywords found: it has no keyword, or one of them is
// found (TestKeywordsInSameAsContains checks it against one
// strings.Contains per keyword).
func admitted(kw, found keywordSet) bool {
	return kw == keywordSet{} || kw[0]&found[0] != 0 || kw[1]&found[1] != 0
}

// firstToken returns the name of the first token rule matching text, ""
// when none does. lower is fold(text). Only the rules whose keywords occur
// in lower run; the result is the same as trying every rule in order.
func firstToken(text, lower string) string {
	return firstTokenOf(text, keywordsIn(lower))
}

// firstTokenOf is firstToken given the keywords found in the folded text.
func firstTokenOf(text string, found keywordSet) string {
	rules := tokenRules()
	kws := ruleKeywords().token
	cand := make([]int, 0, 64)
	for i := range rules {
		if admitted(kws[i], found) {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return ""
	}
	if len(cand) >= manyCandidates && !anyToken().MatchString(text) {
		return ""
	}
	for _, i := range cand {
		if rules[i].re.MatchString(text) {
			return rules[i].name
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
		{keywords: []string{"://"}, name: "password in a connection string", check: func(m []string) bool { return looksSecret(m[1], 3, false) },
			re: regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@"'<>]*:([^\s@/"'<>]{3,})@[A-Za-z0-9\[]`)},
		// Password=...; in ADO.NET / JDBC style connection strings.
		// The key must be next to a ";" (before it or after the value).
		{keywords: []string{"password", "pwd"}, name: "password in a connection string", check: func(m []string) bool { return looksSecret(m[1]+m[2], 4, false) && !strings.Contains(m[1]+m[2], "(") },
			re: regexp.MustCompile(`(?i);\s*(?:password|pwd)\s*=\s*([^;\s"']{4,})|(?:^|[\s"'])(?:password|pwd)\s*=\s*([^;\s"']{4,})\s*;`)},
		// key = value, key: value, key := value, key => value, "key": "value",
		// where the key names a credential. The key may be prefixed
		// (DB_PASSWORD, aws_secret_access_key); \b cannot be used before the
		// word because "_" is a word character.
		{keywords: assignmentKeywords, pre: assignmentMayMatch, name: "password or secret assignment", check: assignmentIsSecret, re: regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|private[_-]?key|access[_-]?key|auth[_-]?key|license[_-]?key|credentials?)[A-Za-z0-9_.-]*)(["']?\s*(?::=|=>|==|=|:)\s*)((?:"[^"\n]*"|'[^'\n]*'|` + "`[^`\\n]*`" + `|[^\s,;]+))`)},
		// Authorization: Bearer / Basic credentials.
		{keywords: []string{"bearer", "token"}, name: "authorization header credential", check: func(m []string) bool {
			return looksSecret(m[1], 20, true) && (hasDigitAndLetter(m[1]) || mixedCaseLong(m[1]))
		}, re: regexp.MustCompile(`(?i)\b(?:bearer|token)\s+([A-Za-z0-9._~+/-]{20,}={0,2})`)},
		// Basic credentials: base64 of "user:password".
		{keywords: []string{"basic"}, name: "authorization header credential", check: basicIsSecret,
			re: regexp.MustCompile(`(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})`)},
		// <password>value</password> in XML configuration.
		{keywords: []string{"</"}, name: "password or secret in XML", check: func(m []string) bool { return looksSecret(m[2], 6, false) },
			re: regexp.MustCompile(`(?i)<([A-Za-z0-9_.:-]*(?:password|passwd|secret|token|api[_-]?key|apikey)[A-Za-z0-9_.-]*)>([^<\s]{6,})</`)},
		// .netrc: machine HOST login USER password PASSWORD.
		{keywords: []string{"machine"}, name: "password in a .netrc entry", check: func(m []string) bool { return looksSecret(m[1], 4, false) },
			re: regexp.MustCompile(`(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S+)`)},
	}
})

// assignmentKeywords are the keywords of the assignment rule (contextRules):
// each of its regexp's key words contains one.
var assignmentKeywords = []string{"passw", "passphrase", "pwd", "secret", "token", "api", "private", "access", "auth", "license", "credential"}

// assignmentMayMatch reports whether the folded text lower has what every
// match of the assignment rule's regexp has: a keyword, then a run of
// [a-z0-9_.-], an optional quote, blanks (\s: tab, newline, form feed,
// carriage return, space), and ":" or "=". The regexp's key is a run of
// those characters around a key word, and its operator follows the run
// after the optional quote and blanks; folding maps the only non-ASCII
// letters (?i) matches in [A-Za-z] to ASCII (fold). The regexp, tried at
// every start in a text with "token" or "api" in it, was 1.2 CPU-s of a
// +80,000 batch (pprof, docs/benchmarks.md); TestPrefilterAdmitsEveryMatch
// checks the condition against it.
func assignmentMayMatch(lower string) bool {
	for _, k := range assignmentKeywords {
		for i := 0; ; {
			j := strings.Index(lower[i:], k)
			if j < 0 {
				break
			}
			p := i + j + len(k)
			for p < len(lower) && isKeyByte(lower[p]) {
				p++
			}
			if p < len(lower) && (lower[p] == '"' || lower[p] == '\'') {
				p++
			}
			for p < len(lower) && (lower[p] == ' ' || lower[p] == '\t' || lower[p] == '\n' || lower[p] == '\f' || lower[p] == '\r') {
				p++
			}
			if p < len(lower) && (lower[p] == ':' || lower[p] == '=') {
				return true
			}
			i += j + 1
		}
	}
	return false
}

// isKeyByte reports whether c is one of [A-Za-z0-9_.-].
func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

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

// isTokenByte reports whether c is one of the characters a line break
// between two of which joinTokenLines removes: [A-Za-z0-9_+/=.-].
func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '+' || c == '/' || c == '=' || c == '.' || c == '-'
}

// normalize removes zero-width characters and NFKC-folds text
// (fullwidth letters, ligatures and other compatibility forms become their
// ASCII equivalents). ASCII text is returned as it is: it has no
// zero-width character (all are outside ASCII) and is its own NFKC form
// (Unicode Standard Annex #15: ASCII characters have no decomposition
// and do not compose), which skips both passes for most memories (0.4 of
// 2.2 CPU-s of the secret scan of 80,000 memories, docs/benchmarks.md).
func normalize(text string) string {
	if ident.IsASCII(text) {
		return text
	}
	return norm.NFKC.String(zeroWidth.Replace(text))
}

// joinTokenLines removes line breaks between token characters, joining a
// token that was split over lines: two passes of joinTokenLinesOnce.
func joinTokenLines(text string) string {
	if !strings.Contains(text, "\n") {
		return text
	}
	// Twice: a match consumes the characters on both sides of a break, so
	// breaks one character apart need a second pass.
	return joinTokenLinesOnce(joinTokenLinesOnce(text))
}

// joinTokenLinesOnce is the regexp replacement
//
//	regexp.MustCompile(`([A-Za-z0-9_+/=.-])[ \t]*\r?\n[ \t]*([A-Za-z0-9_+/=.-])`).ReplaceAllString(text, "$1$2")
//
// written out, without the regexp machine (TestJoinTokenLinesSameAsRegexp,
// FuzzJoinTokenLines). Each match holds one "\n" and has one possible
// start, the token character before the spaces and tabs (and "\r") that
// precede it, since none of those is a token character; the regexp's
// leftmost matches, each search resuming after the previous match, are
// so the matches around each "\n" in turn whose start is not inside the
// previous match. Every character the pattern names is ASCII, so bytes
// are scanned, in UTF-8 valid or not. text itself is returned when
// nothing matches.
func joinTokenLinesOnce(text string) string {
	var out []byte // nil until the first match
	done := 0      // text[:done] is in out, or matched
	for k := 0; ; {
		nl := strings.IndexByte(text[k:], '\n')
		if nl < 0 {
			break
		}
		k += nl // text[k] is the line break
		i := k
		if i > 0 && text[i-1] == '\r' {
			i--
		}
		for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
			i--
		}
		i-- // the token character before the break
		j := k + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if i < done || j >= len(text) || !isTokenByte(text[i]) || !isTokenByte(text[j]) {
			k++
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(text))
		}
		out = append(out, text[done:i+1]...)
		out = append(out, text[j])
		done = j + 1
		k = j + 1
	}
	if out == nil {
		return text
	}
	return string(append(out, text[done:]...))
}

// Find returns the kind of credential found in text ("" when none), such
// as "GitHub token" or "password assignment".
func Find(text string) string {
	n := normalize(text)
	lower := fold(n)
	found := keywordsIn(lower)
	if name := firstTokenOf(n, found); name != "" {
		return name
	}
	ctx := ruleKeywords().context
	for i, r := range contextRules() {
		if !admitted(ctx[i], found) || r.pre != nil && !r.pre(lower) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatch(n, -1) {
			if r.check == nil || r.check(m) {
				return r.name
			}
		}
	}
	if j := joinTokenLines(n); j != n {
		if name := firstToken(j, fold(j)); name != "" {
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
