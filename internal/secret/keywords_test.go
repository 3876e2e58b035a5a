package secret

import (
	"math/rand"
	"strings"
	"testing"
)

// ruleExamples are extra positives for rules the corpus may not cover,
// so that every rule's keywords are checked against at least one match.
var ruleExamples = []string{
	"-----BEGIN OPENSSH PRIVATE KEY-----",
	"AKIAIOSFODNN7EXAMPLQ", "ASIAIOSFODNN7EXAMPLQ",
	"ghp_" + strings.Repeat("a1B2", 9), "github_pat_" + strings.Repeat("a1B2_", 13),
	"glpat-" + strings.Repeat("a1B2", 6), "GR1348941" + strings.Repeat("a1B2", 6),
	"xoxb-1234-" + strings.Repeat("a1B2", 4), "xapp-1-A1B2C3-1234-abc123",
	"https://hooks.slack.com/services/" + strings.Repeat("A1b2", 6),
	"https://discord.com/api/webhooks/123/" + strings.Repeat("a1B2", 8),
	"npm_" + strings.Repeat("a1B2", 9), "pypi-AgEIcHlwaS5vcmc" + strings.Repeat("a1B2", 13),
	"SG." + strings.Repeat("a1B2", 6) + "." + strings.Repeat("a1B2", 11),
	"AccountKey=" + strings.Repeat("a1B2", 11), "accountkey = " + strings.Repeat("a1B2", 11),
	"https://x.blob.core.windows.net/c?sv=1&sig=" + strings.Repeat("a1B2", 9),
	" abc1Q~" + strings.Repeat("a1B2", 8) + " ",
	"AIza" + strings.Repeat("a1B2", 9), "GOCSPX-" + strings.Repeat("a1B2", 7),
	"ya29." + strings.Repeat("a1B2", 8), `"private_key_id": "` + strings.Repeat("a1b2", 10) + `"`,
	"sk_live_" + strings.Repeat("a1B2", 6), "rk_test_" + strings.Repeat("a1B2", 6), "whsec_" + strings.Repeat("a1B2", 6),
	"sk-ant-api03-" + strings.Repeat("a1B2", 21), "sk-proj-" + strings.Repeat("a1B2", 6) + "T3BlbkFJ" + strings.Repeat("a1B2", 6),
	"sk-" + strings.Repeat("a1B2", 9), "hf_" + strings.Repeat("abCD", 8) + "ab",
	"dop_v1_" + strings.Repeat("a1b2", 16), "shpat_" + strings.Repeat("a1b2", 8),
	"SK" + strings.Repeat("a1b2", 8), "key-" + strings.Repeat("a1b2", 8), strings.Repeat("a1b2", 8) + "-us12",
	"sq0atp-" + strings.Repeat("a1B2", 6), "EAAA" + strings.Repeat("a1B2", 6), "dckr_pat_" + strings.Repeat("a1B2", 7),
	"hvs." + strings.Repeat("a1B2", 6), "abcdefghij1234.atlasv1." + strings.Repeat("a1B2", 15),
	"ATATT3" + strings.Repeat("a1B2", 38), "dapi" + strings.Repeat("a1b2", 8), "dp.pt." + strings.Repeat("a1B2", 10),
	"glsa_" + strings.Repeat("a1B2", 8) + "_a1b2c3d4", "glc_" + strings.Repeat("a1B2", 8),
	"lin_api_" + strings.Repeat("a1B2", 10), "PMAK-" + strings.Repeat("a1b2", 6) + "-" + strings.Repeat("a1b2", 8) + "a1",
	"pul-" + strings.Repeat("a1b2", 10), "sntrys_" + strings.Repeat("a1B2", 10), "123456789:AA" + strings.Repeat("a1B2", 8),
	"AGE-SECRET-KEY-1" + strings.Repeat("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 2)[:58],
	"eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.abcdefghijkl",
	"postgres://app:S3cr3tPw@db:5432/prod", "Server=x;Password=S3cr3tPw;", "password=S3cr3tPw;",
	"DB_PASSWORD=hunter2hunter2", "API-KEY: 'a1B2c3D4e5F6'", "Authorization: Bearer " + strings.Repeat("a1B2", 6),
	"Authorization: Basic dXNlcjpTM2NyM3RQdw==", "<dbPassword>S3cr3tPw</dbPassword>",
	"machine example.org login me password S3cr3tPw",
	"PAſSWORD=hunter2hunter2", "\u212aEY-" + strings.Repeat("a1b2", 8),
}

// keywordTexts are every corpus text and example, normalized and
// line-joined as Find scans them.
func keywordTexts(t testing.TB) []string {
	texts := append(readCorpus(t, "secrets.txt"), readCorpus(t, "nonsecrets.txt")...)
	texts = append(texts, ruleExamples...)
	var out []string
	for _, s := range texts {
		n := normalize(s)
		out = append(out, n, joinTokenLines(n))
	}
	return out
}

// TestKeywordsAdmitEveryMatch checks the prefilter against the rules: on
// every corpus text and example, a rule whose regexp matches has one of
// its keywords in the folded text (so skipping the rule when none occurs
// changes no result), and every rule, token and context, matches at least
// one text, so no rule's keywords go untested.
func TestKeywordsAdmitEveryMatch(t *testing.T) {
	rules := append(append([]secretRule{}, tokenRules()...), contextRules()...)
	matched := make([]int, len(rules))
	for _, x := range keywordTexts(t) {
		lower := fold(x)
		for i := range rules {
			r := &rules[i]
			if len(r.keywords) == 0 {
				t.Errorf("rule %q has no keywords", r.name)
			}
			if !r.re.MatchString(x) {
				continue
			}
			matched[i]++
			if !r.admits(lower) {
				t.Errorf("rule %q matches %q but none of its keywords %q occurs", r.name, x, r.keywords)
			}
		}
	}
	for i, n := range matched {
		if n == 0 {
			t.Errorf("rule %d (%q) matches no corpus text or example", i, rules[i].name)
		}
	}
}

// findUnfiltered is Find without the keyword prefilter (every rule runs),
// the reference for TestFindSameAsUnfiltered.
func findUnfiltered(text string) string {
	first := func(x string) string {
		for _, r := range tokenRules() {
			if r.re.MatchString(x) {
				return r.name
			}
		}
		return ""
	}
	n := normalize(text)
	if name := first(n); name != "" {
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
		if name := first(j); name != "" {
			return name + " (split over lines)"
		}
	}
	return ""
}

// TestFindSameAsUnfiltered: Find with the prefilter names the same kind
// as trying every rule, on every corpus text (secrets and look-alikes)
// and example, positives and negatives.
func TestFindSameAsUnfiltered(t *testing.T) {
	texts := append(readCorpus(t, "secrets.txt"), readCorpus(t, "nonsecrets.txt")...)
	texts = append(texts, ruleExamples...)
	found := 0
	for _, s := range texts {
		want := findUnfiltered(s)
		if got := Find(s); got != want {
			t.Errorf("Find(%q) = %q, unfiltered %q", s, got, want)
		}
		if want != "" {
			found++
		}
	}
	if found < len(ruleExamples) {
		t.Fatalf("only %d of %d texts hold a secret", found, len(texts))
	}
}

// BenchmarkFind scans every corpus text once per iteration, with the
// prefilter (Find) and without it (findUnfiltered).
func BenchmarkFind(b *testing.B) {
	texts := append(readCorpus(b, "secrets.txt"), readCorpus(b, "nonsecrets.txt")...)
	for _, bc := range []struct {
		name string
		find func(string) string
	}{{"prefilter", Find}, {"unfiltered", findUnfiltered}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				for _, s := range texts {
					bc.find(s)
				}
			}
		})
	}
}

// TestKeywordsInSameAsContains checks keywordsIn against
// strings.Contains of every keyword, and admitted against admits, on
// every corpus text and example (normalized, line-joined and folded),
// the keywords themselves, overlapping and at both ends of a text.
func TestKeywordsInSameAsContains(t *testing.T) {
	tab := ruleKeywords()
	texts := keywordTexts(t)
	for _, k := range tab.words {
		texts = append(texts, k, "x"+k, k+"y", k+k, k[:len(k)-1], "a "+k[1:])
	}
	texts = append(texts, strings.Join(tab.words, ""), strings.Join(tab.words, " "))
	for _, x := range texts {
		checkKeywordsIn(t, fold(x))
	}
}

func checkKeywordsIn(t *testing.T, lower string) {
	t.Helper()
	tab := ruleKeywords()
	found := keywordsIn(lower)
	for n, k := range tab.words {
		if got, want := found[n/64]&(1<<(n%64)) != 0, strings.Contains(lower, k); got != want {
			t.Fatalf("keywordsIn(%q) has %q: %v, want %v", lower, k, got, want)
		}
	}
	for i, r := range tokenRules() {
		if got, want := admitted(tab.token[i], found), r.admits(lower); got != want {
			t.Fatalf("token rule %s admitted %q: %v, want %v", r.name, lower, got, want)
		}
	}
	for i, r := range contextRules() {
		if got, want := admitted(tab.context[i], found), r.admits(lower); got != want {
			t.Fatalf("context rule %s admitted %q: %v, want %v", r.name, lower, got, want)
		}
	}
}

// FuzzKeywordsIn compares keywordsIn with strings.Contains on folded
// fuzzed text, and on text built from pieces of the keywords.
func FuzzKeywordsIn(f *testing.F) {
	f.Add("ghp_ token sk-ant- akia", uint8(3))
	f.Add("private key -----BEGIN", uint8(0))
	f.Fuzz(func(t *testing.T, s string, pick uint8) {
		checkKeywordsIn(t, fold(s))
		words := ruleKeywords().words
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			k := words[(int(s[i])+int(pick))%len(words)]
			b.WriteString(k[:1+int(s[i])%len(k)])
		}
		checkKeywordsIn(t, b.String())
	})
}

// admits reports whether the folded text lower contains one of the
// rule's keywords (always true for a rule without keywords): one
// strings.Contains per keyword, the reference of admitted (firstToken
// and the context rules used it before keywordsIn).
func (r *secretRule) admits(lower string) bool {
	if len(r.keywords) == 0 {
		return true
	}
	for _, k := range r.keywords {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// TestPrefilterAdmitsEveryMatch checks the rules' pre conditions against
// their regexps: on every corpus text and example, and on 200,000 random
// texts of key words in any case, key characters, quotes, blanks
// (\v is not one), operators and the non-ASCII letters folding and (?i)
// treat apart (ſ, the Kelvin sign, İ, é), a text a rule's regexp
// matches meets its pre condition, and some texts are matched.
func TestPrefilterAdmitsEveryMatch(t *testing.T) {
	texts := keywordTexts(t)
	parts := []string{"password", "PassWD", "pwd", "Secret", "TOKEN", "api", "API_KEY", "apikey", "private-key", "access.key", "auth_key", "License", "credentials",
		"x", "Z9", "_", ".", "-", "\"", "'", "`", " ", "\t", "\n", "\v", "\r", ":", "=", "=>", ":=", "==", ",", ";", "(", "ſ", "\u212a", "İ", "é", "hunter2hunter2", "abc"}
	rng := rand.New(rand.NewSource(7))
	for range 200_000 {
		var b strings.Builder
		for range 1 + rng.Intn(8) {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		texts = append(texts, b.String())
	}
	for _, r := range contextRules() {
		if r.pre == nil {
			continue
		}
		matched := 0
		for _, x := range texts {
			if !r.re.MatchString(x) {
				continue
			}
			matched++
			if !r.pre(fold(x)) {
				t.Fatalf("rule %q matches %q but its pre condition is false", r.name, x)
			}
		}
		if matched < 1000 {
			t.Errorf("rule %q matched %d texts: too few to check its pre condition", r.name, matched)
		}
	}
}
