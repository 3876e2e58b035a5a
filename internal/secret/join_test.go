package secret

import (
	"regexp"
	"strings"
	"testing"
)

// joinTokenLinesRegexp is joinTokenLines as it was written before
// joinTokenLinesOnce: the regexp replacement, twice.
func joinTokenLinesRegexp(text string) string {
	if !strings.Contains(text, "\n") {
		return text
	}
	for i := 0; i < 2; i++ {
		text = lineBreakInTokenRegexp.ReplaceAllString(text, "$1$2")
	}
	return text
}

var lineBreakInTokenRegexp = regexp.MustCompile(`([A-Za-z0-9_+/=.-])[ \t]*\r?\n[ \t]*([A-Za-z0-9_+/=.-])`)

// joinCases are line breaks between token characters and near misses:
// spaces and tabs on either side, CR LF, a lone CR, breaks one character
// apart, at the start and end, doubled, next to non-ASCII and invalid
// UTF-8.
var joinCases = []string{
	"", "\n", "a\n", "\na", "a\nb", "a\n\nb", "a \t\n\t b", "a\r\nb", "a\rb", "a\r\r\nb", "a \r \nb",
	"a\nb\nc", "a\nb\nc\nd\ne", "ab\ncd\nef", "a\n b\n c", "AKIAIOSFODNN7\nEXAMPLE", "AKIA\n  IOSF\n  ODNN\n  7EXAMPLE",
	"a\n\tb", "a\n \n b", "+\n/", "=\n.", "-\n_", "a,\nb", "a\n,b", "é\nb", "a\né", "\xff\na", "a\n\xff",
	"x\ny\n", "\nx\ny", "ghp_\nabc\n", "token:\n ghp_abc\n def", strings.Repeat("a\n", 50), strings.Repeat("a \n", 50),
	strings.Repeat("\n", 10) + "a", "a" + strings.Repeat(" ", 100) + "\n" + strings.Repeat("\t", 100) + "b",
}

func TestJoinTokenLinesSameAsRegexp(t *testing.T) {
	texts := append(readCorpus(t, "secrets.txt"), readCorpus(t, "nonsecrets.txt")...)
	texts = append(texts, ruleExamples...)
	texts = append(texts, joinCases...)
	joined := 0
	for _, s := range texts {
		for _, x := range []string{s, normalize(s)} {
			got, want := joinTokenLines(x), joinTokenLinesRegexp(x)
			if got != want {
				t.Fatalf("joinTokenLines(%q) = %q, want %q", x, got, want)
			}
			if got != x {
				joined++
			}
		}
	}
	if joined < 20 {
		t.Fatalf("only %d texts with a line break joined", joined)
	}
	// Every string of up to four bytes of an alphabet of each class.
	alpha := []string{"a", "Z", "0", "_", "+", "/", "=", ".", "-", " ", "\t", "\r", "\n", ",", "é"}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if got, want := joinTokenLines(prefix), joinTokenLinesRegexp(prefix); got != want {
			t.Fatalf("joinTokenLines(%q) = %q, want %q", prefix, got, want)
		}
		if n == 0 {
			return
		}
		for _, c := range alpha {
			gen(prefix+c, n-1)
		}
	}
	gen("", 4)
}

// FuzzJoinTokenLines compares joinTokenLines with the regexp replacement
// on the input as given and mapped onto an alphabet of token characters,
// blanks and line breaks (so joins are frequent). Its seeds are joinCases.
func FuzzJoinTokenLines(f *testing.F) {
	for _, c := range joinCases {
		f.Add(c)
	}
	alpha := "aZ0_+/=.- \t\r\n,\xc3"
	f.Fuzz(func(t *testing.T, s string) {
		mapped := []byte(s)
		for i := range mapped {
			mapped[i] = alpha[int(mapped[i])%len(alpha)]
		}
		for _, x := range []string{s, string(mapped)} {
			if got, want := joinTokenLines(x), joinTokenLinesRegexp(x); got != want {
				t.Fatalf("joinTokenLines(%q) = %q, want %q", x, got, want)
			}
		}
	})
}

// BenchmarkJoinTokenLines compares joinTokenLines with the regexp
// replacement on memory-like texts (two paragraphs, no token split over
// lines) and on the corpus texts with a line break.
func BenchmarkJoinTokenLines(b *testing.B) {
	memory := []string{
		"EndpointLinkProps: burst unwrap since a concurrent writer can observe a half-built state.\n\nSee EndpointLink.tsx (note 0): check flush and network before changing the engine.",
		"onSeriesOrHistogramUpdate: wrap pointer since a concurrent writer can observe a half-built state. The method says \"histogram. It updates: * p.lset. * p.entryBytes. *\".\n\nSee protobufparse.go (note 3): check schema and replica before changing the compaction.",
	}
	var corpus []string
	for _, s := range append(readCorpus(b, "secrets.txt"), readCorpus(b, "nonsecrets.txt")...) {
		if strings.Contains(s, "\n") {
			corpus = append(corpus, normalize(s))
		}
	}
	for _, bc := range []struct {
		name  string
		texts []string
	}{{"memory", memory}, {"corpus", corpus}} {
		for _, fn := range []struct {
			name string
			join func(string) string
		}{{"scan", joinTokenLines}, {"regexp", joinTokenLinesRegexp}} {
			b.Run(bc.name+"/"+fn.name, func(b *testing.B) {
				for b.Loop() {
					for _, s := range bc.texts {
						fn.join(s)
					}
				}
			})
		}
	}
}
