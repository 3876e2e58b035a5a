package index

import (
	"encoding/binary"

	"github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/tokenizer"
)

// asciiTokenizer is bluge's Unicode word tokenizer (analysis/tokenizer
// UnicodeTokenizer: the word segments of github.com/blevesearch/segment,
// an implementation of the word boundaries of Unicode UAX #29, revision
// for Unicode 8.0, of which it keeps the Number and Letter segments) with
// a fast path for input that is all ASCII; input with any byte ≥ 0x80
// goes to UnicodeTokenizer. For ASCII input it returns the same token
// stream: the same Term (a slice of the input, as UnicodeTokenizer's
// are), Start, End (byte offsets), PositionIncr (1) and Type
// (analysis.Numeric for a segment of digits, '_' and number separators
// only, else analysis.AlphaNumeric) (TestASCIITokenizerSameAsUnicode,
// FuzzASCIITokenizer). It allocates two slices per call (the tokens and
// the stream of their pointers), where UnicodeTokenizer runs the segment
// package's table-driven state machine over every byte.
//
// The ASCII rules, as segment's Ragel grammar (segment_words.rl) has
// them, each segment taken as the longest match from where the previous
// one ended:
//   - a word is a run of letters (A-Z, a-z), digits and '_' (WB5, WB8,
//     WB9, WB10, WB13a, WB13b);
//   - ':' (MidLetter), '.' (MidNumLet) and '\” (Single_Quote) join
//     when between two letters (WB6, WB7); ',' and ';' (MidNum), '.'
//     and '\” when between two digits (WB11, WB12);
//   - every other byte (space, punctuation, control, CR LF) is a segment
//     of its own, which the tokenizer drops;
//   - a word is Numeric when it has a digit and no letter (the grammar's
//     WordNumeric rule wins the tie over Word), else AlphaNumeric (a word
//     of '_' only included).
type asciiTokenizer struct {
	unicode *tokenizer.UnicodeTokenizer
}

func newASCIITokenizer() *asciiTokenizer {
	return &asciiTokenizer{unicode: tokenizer.NewUnicodeTokenizer()}
}

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
	if !isASCII(input) {
		return t.unicode.Tokenize(input)
	}
	return tokenizeASCII(input, nil)
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
