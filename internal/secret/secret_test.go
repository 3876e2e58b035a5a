package secret

import (
	"bufio"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// readCorpus reads a testdata/secrets file: one case per line, "#" lines
// are comments, `\n` is a newline, `\t` a tab, `\\` a backslash and
// `\u{HEX}` the character U+HEX.
func readCorpus(t testing.TB, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "secrets", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, unescapeCorpus(t, line))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func unescapeCorpus(t testing.TB, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'u':
			end := strings.IndexByte(s[i:], '}')
			if i+1 >= len(s) || s[i+1] != '{' || end < 0 {
				t.Fatalf("bad \\u escape in %q", s)
			}
			n, err := strconv.ParseUint(s[i+2:i+end], 16, 32)
			if err != nil {
				t.Fatalf("bad \\u escape in %q: %v", s, err)
			}
			b.WriteRune(rune(n))
			i += end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// TestSecretCorpus measures the scanner on testdata/secrets: realistic fake
// credentials (secrets.txt) must be caught, look-alike prose and code
// (nonsecrets.txt) must pass. Run with -v to see the rates and each miss.
func TestSecretCorpus(t *testing.T) {
	secrets := readCorpus(t, "secrets.txt")
	others := readCorpus(t, "nonsecrets.txt")
	if len(secrets) < 100 || len(others) < 100 {
		t.Fatalf("corpus too small: %d secrets, %d non-secrets (want ≥ 100 each)", len(secrets), len(others))
	}
	caught := 0
	for _, s := range secrets {
		if Find(s) != "" {
			caught++
		} else {
			t.Logf("missed: %q", s)
		}
	}
	fps := 0
	for _, s := range others {
		if kind := Find(s); kind != "" {
			fps++
			t.Logf("false positive (%s): %q", kind, s)
		}
	}
	rate := float64(caught) / float64(len(secrets))
	fpRate := float64(fps) / float64(len(others))
	t.Logf("caught %d of %d secrets (%.1f%%); %d false positives in %d non-secrets (%.1f%%)", caught, len(secrets), 100*rate, fps, len(others), 100*fpRate)
	if rate < 0.95 {
		t.Errorf("catch rate %.1f%%, want ≥ 95%%", 100*rate)
	}
	if fpRate > 0.02 {
		t.Errorf("false positive rate %.1f%%, want ≤ 2%%", 100*fpRate)
	}
}

// FuzzFind: the scanner never panics, and invisible characters
// inserted anywhere do not change its verdict.
func FuzzFind(f *testing.F) {
	f.Add("postgres://app:S3cr3t@db/prod", 3)
	f.Add("token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB", 10)
	f.Add("password := os.Getenv(\"PW\")", 0)
	f.Add("ＤＢ＿ＰＡＳＳＷＯＲＤ=hunter2hunter2", 5)
	f.Add("AKIAIOSFODNN7\nEXAMPLE", 7)
	f.Fuzz(func(t *testing.T, s string, at int) {
		got := Find(s)
		if at < 0 {
			at = -at
		}
		if at < 0 || len(s) == 0 {
			return
		}
		at %= len(s) + 1
		// Insert at a rune boundary so the text stays the same text.
		for at > 0 && at < len(s) && !utf8RuneStart(s[at]) {
			at--
		}
		z := s[:at] + "\u200b" + s[at:]
		if got2 := Find(z); got2 != got {
			t.Fatalf("Find(%q) = %q but with a zero-width space at %d = %q", s, got, at, got2)
		}
	})
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// TestAnyTokenIsTheRules checks that the one-pass alternation of the
// token rules matches exactly the corpus texts (and their line-joined
// forms) that one of the rules matches, so Find names the same kind as
// when it tried every rule.
func TestAnyTokenIsTheRules(t *testing.T) {
	texts := append(readCorpus(t, "secrets.txt"), readCorpus(t, "nonsecrets.txt")...)
	hits := 0
	for _, s := range texts {
		for _, x := range []string{normalize(s), joinTokenLines(normalize(s))} {
			want := ""
			for _, r := range tokenRules() {
				if r.re.MatchString(x) {
					want = r.name
					break
				}
			}
			if got := firstToken(x, fold(x)); got != want {
				t.Errorf("firstToken(%q) = %q, want %q", x, got, want)
			}
			if want != "" {
				hits++
			}
		}
	}
	if hits < 50 {
		t.Fatalf("only %d corpus texts match a token rule", hits)
	}
}

// normalize's ASCII shortcut gives what the two passes give: ASCII text
// is its own NFKC form and holds no zero-width character.
func TestNormalizeASCII(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := range 2000 {
		b := make([]byte, rng.Intn(200))
		for j := range b {
			b[j] = byte(rng.Intn(128))
		}
		s := string(b)
		if i == 0 {
			s = "password = \"hunter2\"\r\n\x00\x7f ghp_x"
		}
		if got, want := normalize(s), norm.NFKC.String(zeroWidth.Replace(s)); got != want {
			t.Fatalf("normalize(%q) = %q, want %q", s, got, want)
		}
	}
}
