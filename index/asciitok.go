package index

import (
	"encoding/binary"

	wordseg "github.com/blevesearch/segment"

	"github.com/blugelabs/bluge/analysis"
)

// asciiTokenizer is bluge's Unicode word tokenizer (analysis/tokenizer
// UnicodeTokenizer: the word segments of github.com/blevesearch/segment,
// an implementation of the word boundaries of Unicode UAX #29, revision
// for Unicode 8.0, of which it keeps the Number and Letter segments) with
// a fast path for ASCII: input that is all ASCII is tokenized by the
// rules below, and input with a byte ≥ 0x80 is cut where a segment
// always starts (tokenizeMixed), its all-ASCII pieces tokenized by the
// same rules and the others by segment's word segmenter. It returns the
// same token stream as UnicodeTokenizer: the same Term (a slice of the
// input, as UnicodeTokenizer's are), Start, End (byte offsets),
// PositionIncr (1) and Type (analysis.Numeric for a segment of digits,
// '_' and number separators only, else analysis.AlphaNumeric, and
// analysis.Ideographic for ideographs and kana)
// (TestASCIITokenizerSameAsUnicode, TestASCIITokenizerRepository,
// TestASCIITokenizerFallback, FuzzASCIITokenizer). For all-ASCII input it
// allocates two slices per call (the tokens and the stream of their
// pointers), where UnicodeTokenizer runs segment's table-driven state
// machine over every byte.
//
// The ASCII rules, as segment's Ragel grammar (segment_words.rl) has
// them, each segment taken as the longest match from where the previous
// one ended:
//   - a word is a run of letters (A-Z, a-z), digits and '_' (WB5, WB8,
//     WB9, WB10, WB13a, WB13b);
//   - ':' (MidLetter), '.' (MidNumLet) and the apostrophe
//     (Single_Quote) join when between two letters (WB6, WB7); ',' and
//     ';' (MidNum), '.' and the apostrophe when between two digits (WB11,
//     WB12);
//   - every other byte (space, punctuation, control, CR LF) is a segment
//     of its own, which the tokenizer drops;
//   - a word is Numeric when it has a digit and no letter (the grammar's
//     WordNumeric rule wins the tie over Word), else AlphaNumeric (a word
//     of '_' only included).
type asciiTokenizer struct{}

func newASCIITokenizer() *asciiTokenizer { return &asciiTokenizer{} }

// Byte classes of the ASCII word-boundary rules (asciiClass).
const (
	wbLetter    = 1 << iota // ALetter: A-Z a-z
	wbDigit                 // Numeric: 0-9
	wbUnderline             // ExtendNumLet: '_'
	wbMidLetter             // joins two letters: ':' '.' '\''
	wbMidNum                // joins two digits: ',' ';' '.' '\''

	wbWord = wbLetter | wbDigit | wbUnderline
)

// asciiClass is the word-boundary class of each ASCII byte (0: a
// segment of its own).
var asciiClass = func() (t [128]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = wbLetter
		t[c-'a'+'A'] = wbLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = wbDigit
	}
	t['_'] = wbUnderline
	t[':'] = wbMidLetter
	t[','] = wbMidNum
	t[';'] = wbMidNum
	t['.'] = wbMidLetter | wbMidNum
	t['\''] = wbMidLetter | wbMidNum
	return t
}()

// isASCII reports whether every byte of b is < 0x80.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// asciiWordEnd returns the end of the word of s that starts at i (s[i] a
// letter, digit or '_'; s all ASCII) and the classes of the bytes it
// holds, the joining ones left out.
func asciiWordEnd(s []byte, i int) (end int, seen uint8) {
	for i < len(s) {
		c := asciiClass[s[i]]
		if c&wbWord != 0 {
			seen |= c
			i++
			continue
		}
		if c == 0 || i+1 >= len(s) {
			break
		}
		prev, next := asciiClass[s[i-1]], asciiClass[s[i+1]]
		if c&wbMidLetter != 0 && prev&next&wbLetter != 0 || c&wbMidNum != 0 && prev&next&wbDigit != 0 {
			seen |= next
			i += 2
			continue
		}
		break
	}
	return i, seen
}

// Tokenize implements analysis.Tokenizer.
func (t *asciiTokenizer) Tokenize(input []byte) analysis.TokenStream {
	return tokenize(input, nil)
}

// tokenize is Tokenize with the tokens of all-ASCII input written in
// buf's slices when buf is not nil (tokenizeASCII; textField's reused
// buffer); other input is tokenized by tokenizeMixed into new ones.
func tokenize(input []byte, buf *tokenBuf) analysis.TokenStream {
	if !isASCII(input) {
		return tokenizeMixed(input)
	}
	return tokenizeASCII(input, buf)
}

// tokenizeMixed returns the tokens of input, which has a byte ≥ 0x80:
// the input is cut where a word segment always starts (isCut), the
// pieces that are all ASCII tokenized by the ASCII rules and the others
// by segment's word segmenter, as UnicodeTokenizer does (unicodeTokens).
// Segment boundaries in a piece are those of the whole input: segments
// are found one at a time, each the longest match from where the last
// one ended, no segment runs across a cut, and the segment before a cut
// (the space) ends there whatever follows. When the segmenter stops
// before the end of a piece (segment stops at a segment followed by a
// byte that is not UTF-8), UnicodeTokenizer stops there for the whole
// input, and so does tokenizeMixed.
func tokenizeMixed(input []byte) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input)/6+1)
	for a := 0; a < len(input); {
		h := a // the first byte ≥ 0x80 from a
		for h < len(input) && input[h] < 0x80 {
			h++
		}
		if h == len(input) {
			return appendASCIITokens(out, input, a, h)
		}
		q := h // the last cut in (a, h), or a
		for q > a && !isCut(input, q) {
			q--
		}
		out = appendASCIITokens(out, input, a, q)
		r := h + 1 // the first cut after h, or the end
		for r < len(input) && !isCut(input, r) {
			r++
		}
		var complete bool
		out, complete = appendUnicodeTokens(out, input, q, r)
		if !complete {
			return out
		}
		a = r
	}
	return out
}

// isCut reports whether a word segment starts at i of input whatever
// came before: input[i-1] is a space, input[i] an ASCII byte, and so are
// the three bytes before the space. In segment's grammar a space is a
// segment of its own plus the Extend and Format characters after it
// (Other), no ASCII byte starts an Extend or Format character, and no
// other rule matches a space; but segment's byte ranges for characters
// of two to four bytes let some continuation bytes be ASCII ("\xcd "
// is an Extend character there, "\xc4 " a letter), so a space within
// three bytes of a byte ≥ 0x80 may belong to the character before it.
func isCut(input []byte, i int) bool {
	if i <= 0 || i >= len(input) || input[i-1] != ' ' || input[i] >= 0x80 {
		return false
	}
	for j := max(0, i-4); j < i-1; j++ {
		if input[j] >= 0x80 {
			return false
		}
	}
	return true
}

// appendASCIITokens appends the tokens of input[a:b], all ASCII, as
// tokenizeASCII makes them, at their offsets in input.
func appendASCIITokens(out analysis.TokenStream, input []byte, a, b int) analysis.TokenStream {
	if a == b {
		return out
	}
	toks := tokenizeASCII(input[a:b], nil)
	for _, tok := range toks {
		tok.Start += a
		tok.End += a
	}
	return append(out, toks...)
}

// appendUnicodeTokens appends the tokens UnicodeTokenizer makes of
// input[a:b], at their offsets in input (their terms slices of input
// reaching to its end, as when UnicodeTokenizer tokenizes all of input),
// and reports whether the segmenter reached b.
func appendUnicodeTokens(out analysis.TokenStream, input []byte, a, b int) (analysis.TokenStream, bool) {
	seg := wordseg.NewWordSegmenterDirect(input[a:b])
	start := 0
	for seg.Segment() {
		term := seg.Bytes()
		end := start + len(term)
		if seg.Type() != wordseg.None {
			out = append(out, &analysis.Token{Term: term, Start: a + start, End: a + end, PositionIncr: 1, Type: unicodeTokenType(seg.Type())})
		}
		start = end
	}
	return out, a+start == b
}

// unicodeTokenType is the token type UnicodeTokenizer gives a segment of
// type t (bluge analysis/tokenizer convertType).
func unicodeTokenType(t int) analysis.TokenType {
	switch t {
	case wordseg.Ideo, wordseg.Kana:
		return analysis.Ideographic
	case wordseg.Number:
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}

// tokenizeASCII returns the tokens of input, all ASCII: in buf's slices
// when buf is not nil (grown as needed; the stream is then valid until
// buf is used again), else in new ones.
func tokenizeASCII(input []byte, buf *tokenBuf) analysis.TokenStream {
	n := 0
	for i := 0; i < len(input); {
		if asciiClass[input[i]]&wbWord == 0 {
			i++
			continue
		}
		i, _ = asciiWordEnd(input, i)
		n++
	}
	var out analysis.TokenStream
	var toks []analysis.Token
	switch {
	case buf == nil:
		// UnicodeTokenizer returns an empty, non-nil stream for no tokens.
		out = make(analysis.TokenStream, n)
		if n == 0 {
			return out
		}
		toks = make([]analysis.Token, n)
	case len(buf.toks) >= n:
		out, toks = buf.ptrs[:n], buf.toks[:n]
		buf.used = n
	default:
		buf.ptrs, buf.toks = make(analysis.TokenStream, n), make([]analysis.Token, n)
		out, toks = buf.ptrs, buf.toks
		buf.used = n
	}
	k := 0
	for i := 0; i < len(input); {
		if asciiClass[input[i]]&wbWord == 0 {
			i++
			continue
		}
		end, seen := asciiWordEnd(input, i)
		typ := analysis.AlphaNumeric
		if seen&(wbLetter|wbDigit) == wbDigit {
			typ = analysis.Numeric
		}
		toks[k] = analysis.Token{Start: i, End: end, Term: input[i:end], PositionIncr: 1, Type: typ}
		out[k] = &toks[k]
		k++
		i = end
	}
	return out
}
