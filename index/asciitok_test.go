package index

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/tokenizer"
)

// sameTokens returns "" when got and want are the same token stream
// (Term bytes, Start, End, PositionIncr, Type, KeyWord, and each Term a
// slice of its input at Start of the same capacity), else what differs:
// got is of gotIn, want of wantIn, copies of the same input.
func sameTokens(gotIn, wantIn []byte, got, want analysis.TokenStream) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d tokens, want %d: got %v want %v", len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if !bytes.Equal(g.Term, w.Term) || g.Start != w.Start || g.End != w.End || g.PositionIncr != w.PositionIncr || g.Type != w.Type || g.KeyWord != w.KeyWord {
			return fmt.Sprintf("token %d: got %v, want %v", i, g, w)
		}
		if len(g.Term) > 0 && (&g.Term[0] != &gotIn[g.Start] || &w.Term[0] != &wantIn[w.Start] || cap(g.Term) != cap(w.Term)) {
			return fmt.Sprintf("token %d: Term not a slice of the input at %d, or capacity %d, want %d", i, g.Start, cap(g.Term), cap(w.Term))
		}
	}
	return ""
}

// checkASCIITokenizer fails t when asciiTokenizer and UnicodeTokenizer
// differ on input. The inputs are copied: the analyzer's filters must
// see the same bytes either way.
func checkASCIITokenizer(t *testing.T, name string, input []byte) {
	t.Helper()
	a := bytes.Clone(input)
	b := bytes.Clone(input)
	got := newASCIITokenizer().Tokenize(a)
	want := tokenizer.NewUnicodeTokenizer().Tokenize(b)
	if d := sameTokens(a, b, got, want); d != "" {
		t.Fatalf("%s: %q: %s", name, truncate(input, 200), d)
	}
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// asciiOnly returns b with every byte ≥ 0x80 replaced by repl.
func asciiOnly(b []byte, repl byte) []byte {
	out := bytes.Clone(b)
	for i, c := range out {
		if c >= 0x80 {
			out[i] = repl
		}
	}
	return out
}

// asciiTokenizerCases are the hand-written cases of the ASCII word
// boundaries: joining characters between letters, between digits,
// mixed, doubled, at the start and end of the input; '_' runs; CR, LF,
// vertical tab and form feed; quotes; one byte of each class.
var asciiTokenizerCases = []string{
	"", " ", "a", "1", "_", "__", "___", ":", ".", "'", ",", ";", "\"",
	"\r", "\n", "\r\n", "\n\r", "\v", "\f", "\x00", "\x7f", "\t",
	"hello world", "Hello, World!", "don't", "can't.", "'quoted'", "\"quoted\"",
	"a:b", "a::b", "a:1", "1:2", "a.b", "a..b", "a.1", "1.a", "1.2", "1..2",
	"1,2", "1,,2", "a,b", "1;2", "a;b", "a'b", "1'2", "a'1", "1'a",
	"3.14159", "1,000,000.50", "v1.2.3", "1.2.3.4", "192.168.0.1:8080",
	"e.g.", "i.e.,", "U.S.A.", "a.", ".a", "1.", ".1", "a:", ":a", "a'", "'a",
	"a_b", "a__b", "_a", "a_", "_1", "1_", "_1_", "1_2", "a_1", "1_a",
	"a_.b", "a._b", "1_.2", "1._2", "a1.2", "a1.b", "1a.b", "1a.2", "a.b1",
	"foo_bar.baz", "x:=y", "map[string]int", "func (t *T) Tokenize(input []byte)",
	"http://example.com/a.b?c=d&e=f#g", "user@example.com", "O'Neil's", "rock'n'roll",
	"a\rb", "a\nb", "a\r\nb", "a\vb", "a\fb", "1\r\n2", "a\r\n", "\r\na",
	"a-b", "a/b", "a+b", "a b", "a\tb", "--flag=value", "$HOME/.config",
	"0x7f", "0xFF_FF", "1e10", "1.5e-3", "10%", "#12", "v0.2.2", "go1.26.8",
	"ABC123def456", "123abc", "abc123", "a1b2c3", "1a2b3c", "9_a", "a_9",
	"...", ":::", "'''", ",,,", ";;;", "a.b.c.d.e", "1.2,3;4'5", "a:b.c'd",
	"a.'b", "a'.b", "1.'2", "1',2", "a:.b", "it's 3.5 o'clock: 10,000 people",
	strings.Repeat("a", 100000), strings.Repeat("a ", 5000), strings.Repeat("1.", 3000),
	strings.Repeat("x", 70000) + " y", // longer than segment's MaxScanTokenSize
}

func TestASCIITokenizerSameAsUnicode(t *testing.T) {
	for _, c := range asciiTokenizerCases {
		checkASCIITokenizer(t, "case", []byte(c))
		// every case also between words and at the end of a longer input
		checkASCIITokenizer(t, "case in text", []byte("x "+c+" y"))
		checkASCIITokenizer(t, "case joined", []byte("x"+c+"9"))
	}
	for _, c := range asciiTokenizerCases {
		for _, d := range asciiTokenizerCases[:40] {
			checkASCIITokenizer(t, "pair", []byte(c+d))
		}
	}
	// Every byte pair and triple of a small alphabet of each class.
	alpha := []byte("aZ09_:.',;\"\r\n\v\f -")
	for _, x := range alpha {
		for _, y := range alpha {
			for _, z := range alpha {
				checkASCIITokenizer(t, "triple", []byte{x, y, z})
				checkASCIITokenizer(t, "triple between", []byte{'a', x, y, z, '1'})
			}
		}
	}
	// Every ASCII byte alone, after a letter, between letters and between digits.
	for c := 0; c < 0x80; c++ {
		b := byte(c)
		for _, in := range [][]byte{{b}, {'a', b}, {'a', b, 'b'}, {'1', b, '2'}, {b, 'a'}, {b, '1'}} {
			checkASCIITokenizer(t, "byte", in)
		}
	}
}

// eachRepoFile calls fn with the path and bytes of every .go and .md
// file under root (this repository from the index package: ".."),
// hidden folders skipped: the corpus of the analyzer's differential
// tests (asciiTokenizer, textField, termMemo). A walk or read error
// fails the test.
func eachRepoFile(t *testing.T, root string, fn func(path string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || (!strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md")) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fn(path, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestASCIITokenizerRepository compares the tokenizers on every .go and
// .md file of this repository: whole, each line, and with the bytes ≥
// 0x80 replaced (by a space, and by a letter) so the ASCII path runs on
// the whole of them.
func TestASCIITokenizerRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	eachRepoFile(t, root, func(path string, data []byte) {
		files++
		checkASCIITokenizer(t, path, data)
		for _, repl := range []byte{' ', 'x'} {
			fixed := asciiOnly(data, repl)
			if !isASCII(fixed) {
				t.Fatalf("%s: not ASCII after replacing", path)
			}
			checkASCIITokenizer(t, path+" (ASCII)", fixed)
		}
		for line := range bytes.Lines(data) {
			checkASCIITokenizer(t, path+" line", line)
		}
	})
	if files < 100 {
		t.Fatalf("only %d .go and .md files under %s", files, root)
	}
}

// mixedCases have a byte ≥ 0x80: accented and combining letters, a
// combining mark or a soft hyphen (Format) after a space, dashes,
// ideographs, kana, Hangul, invalid UTF-8 (UnicodeTokenizer stops after
// a segment followed by an invalid byte, the rest of the input
// untokenized), a byte of the segment package's over-wide Extend ranges.
var mixedCases = []string{
	"café au lait", "e\u0301t\u00e9", "naïve's", "日本語 text", "a\x80b", "x\xffy", "—dash—", "a\u00adb",
	"a \xff b c", "x y\xffz w", "日本 \xff abc def", "é \xcd a b", "a b \u0301c d", "a \u00adb c", "a  \u0301 b",
	"one — two — three", "x → y ≥ z", "カタカナ abc 한국어 def", "1.5 × 2", "\xc3", "a \xc3", "\xc3 a", "é", " é ", "é ",
	"rock’n’roll it’s", "“quoted” words", "a\u200db c", "naïve café résumé 3.14 don't",
	"1\xcd 1", "a\xc4 b c", "\xcd a", "x\xe0\xa4 y", "x\xe0 a b", "\xf3\xa0\x85 z q", "\xf3\xa0 z q", "\xf3 z q", "é\xcd 1 2",
}

// mixedAlphabet are ASCII and non-ASCII pieces of every kind of
// mixedCases, for the mixed-path tests.
var mixedAlphabet = []string{"a", "1", " ", ".", "'", "\n", "é", "\u0301", "\u00ad", "—", "日", "カ", "한", "\xff", "\xcd", "’", "\xc4", "\xe0", "\xf3", "\xa0"}

// TestASCIITokenizerFallback checks that input with a byte ≥ 0x80 is
// tokenized as UnicodeTokenizer does (tokenizeMixed).
func TestASCIITokenizerFallback(t *testing.T) {
	for _, c := range mixedCases {
		checkASCIITokenizer(t, "non-ASCII", []byte(c))
		checkASCIITokenizer(t, "non-ASCII in text", []byte("some words 3.5 "+c+" more words, don't"))
		checkASCIITokenizer(t, "non-ASCII after text", []byte("some words "+c))
	}
	// Every string of up to three pieces of an alphabet of ASCII and
	// non-ASCII pieces, between words.
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		checkASCIITokenizer(t, "mixed", []byte("ab "+prefix+" cd"))
		checkASCIITokenizer(t, "mixed alone", []byte(prefix))
		if n == 0 {
			return
		}
		for _, p := range mixedAlphabet {
			gen(prefix+p, n-1)
		}
	}
	gen("", 3)
	if isASCII([]byte("0123456\x80")) || isASCII([]byte("01234567\xc3\xa9")) || !isASCII([]byte("012345678")) {
		t.Fatal("isASCII")
	}
}

// TestAnalyzerASCIISameAsUnicode compares the whole English analyzer
// (filters after the tokenizer) with either tokenizer.
func TestAnalyzerASCIISameAsUnicode(t *testing.T) {
	uni := newEnglish()
	uni.Tokenizer = tokenizer.NewUnicodeTokenizer()
	for _, c := range asciiTokenizerCases {
		in := "The Cat's " + c + " RUNNING quickly, don't STOP 3.14 alerts"
		got := english.Analyze([]byte(in))
		want := uni.Analyze([]byte(in))
		if len(got) != len(want) {
			t.Fatalf("%q: %d tokens, want %d", in, len(got), len(want))
		}
		for i := range got {
			if g, w := got[i], want[i]; !bytes.Equal(g.Term, w.Term) || g.Start != w.Start || g.End != w.End || g.PositionIncr != w.PositionIncr || g.Type != w.Type {
				t.Fatalf("%q: token %d: got %v, want %v", in, i, g, w)
			}
		}
	}
}

// FuzzASCIITokenizer compares the tokenizers on the input as given, on it
// with the high bit of each byte cleared, on it mapped onto an alphabet
// of one byte of each word-boundary class (so that joins and their
// failures are frequent), and on it mapped onto mixedAlphabet (the mixed
// path). Its seeds are asciiTokenizerCases and mixedCases.
func FuzzASCIITokenizer(f *testing.F) {
	for _, c := range append(asciiTokenizerCases, mixedCases...) {
		if len(c) < 1000 {
			f.Add([]byte(c))
		}
	}
	alpha := []byte("aZ09_:.',;\"\r\n\v\f -")
	f.Fuzz(func(t *testing.T, in []byte) {
		checkASCIITokenizer(t, "raw", in)
		low := bytes.Clone(in)
		mapped := bytes.Clone(in)
		for i, c := range in {
			low[i] = c & 0x7f
			mapped[i] = alpha[int(c)%len(alpha)]
		}
		checkASCIITokenizer(t, "low", low)
		checkASCIITokenizer(t, "mapped", mapped)
		var mixed []byte
		for _, c := range in {
			mixed = append(mixed, mixedAlphabet[int(c)%len(mixedAlphabet)]...)
		}
		checkASCIITokenizer(t, "mixed", mixed)
	})
}

// benchParagraphs returns the paragraphs of this repository's
// docs/*.md files (prose and code much like memory texts).
func benchParagraphs(b *testing.B) [][]byte {
	paths, _ := filepath.Glob("../docs/*.md")
	var out [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for para := range strings.SplitSeq(string(data), "\n\n") {
			if strings.TrimSpace(para) != "" {
				out = append(out, []byte(para))
			}
		}
	}
	if len(out) == 0 {
		b.Skip("no docs")
	}
	return out
}

// BenchmarkTokenizer measures the word tokenizers, and the English
// analyzer with either, on the paragraphs of docs/*.md: those all ASCII
// (text=ascii, the ASCII path) and all of them (text=all, 5 in 6 of their
// bytes in paragraphs with a non-ASCII character: the mixed path,
// tokenizeMixed). MB/s is per core.
func BenchmarkTokenizer(b *testing.B) {
	all := benchParagraphs(b)
	var ascii [][]byte
	for _, p := range all {
		if isASCII(p) {
			ascii = append(ascii, p)
		}
	}
	uniEnglish := newEnglish()
	uniEnglish.Tokenizer = tokenizer.NewUnicodeTokenizer()
	for _, text := range []struct {
		name  string
		paras [][]byte
	}{{"ascii", ascii}, {"all", all}} {
		n := 0
		for _, p := range text.paras {
			n += len(p)
		}
		for _, bc := range []struct {
			name string
			run  func([]byte) analysis.TokenStream
		}{
			{"tokenizer=unicode", tokenizer.NewUnicodeTokenizer().Tokenize},
			{"tokenizer=ascii", newASCIITokenizer().Tokenize},
			{"analyzer=unicode", uniEnglish.Analyze},
			{"analyzer=ascii", english.Analyze},
		} {
			b.Run("text="+text.name+"/"+bc.name, func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					for _, p := range text.paras {
						bc.run(p)
					}
				}
			})
		}
	}
}
