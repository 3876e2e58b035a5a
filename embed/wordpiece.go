package embed

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	unorm "golang.org/x/text/unicode/norm"
)

// wordPiece is a BERT tokenizer: BertNormalizer (clean text, Chinese
// characters spaced, lower case and accents stripped when configured),
// BertPreTokenizer (split on white space and around punctuation), then
// WordPiece greedy longest-match-first (Wu et al. 2016; Devlin et al.
// 2019), as Hugging Face tokenizers implements them.
type wordPiece struct {
	vocab     map[string]int
	prefix    string
	maxChars  int
	lowercase bool
	strip     bool
	maxID     int
}

func parseWordPiece(raw []byte) (*wordPiece, error) {
	var tj tokenizerJSON
	if err := json.Unmarshal(raw, &tj); err != nil {
		return nil, fmt.Errorf("malformed tokenizer: %w", err)
	}
	if tj.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("tokenizer model %q, only WordPiece is supported", tj.Model.Type)
	}
	var vocab map[string]int
	if err := json.Unmarshal(tj.Model.Vocab, &vocab); err != nil {
		return nil, fmt.Errorf("malformed WordPiece vocabulary: %w", err)
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("tokenizer has an empty vocabulary")
	}
	t := &wordPiece{vocab: vocab, prefix: "##", maxChars: tj.Model.MaxInputCharsPerWord}
	if tj.Model.ContinuingSubwordPrefix != nil {
		t.prefix = *tj.Model.ContinuingSubwordPrefix
	}
	if t.maxChars <= 0 {
		t.maxChars = 100
	}
	if n := tj.Normalizer; n != nil && n.Type == "BertNormalizer" {
		t.lowercase = n.Lowercase == nil || *n.Lowercase
		// strip_accents null follows lowercase (as BERT's tokenizer).
		t.strip = t.lowercase
		if n.StripAccents != nil {
			t.strip = *n.StripAccents
		}
	}
	for tok, id := range t.vocab {
		if id < 0 {
			return nil, fmt.Errorf("token %q has negative id %d", tok, id)
		}
		t.maxID = max(t.maxID, id)
	}
	return t, nil
}

// encode returns the ids of the tokens of text, unknown tokens dropped,
// at most limit.
func (t *wordPiece) encode(text string, limit int) []int {
	var ids []int
	for _, w := range t.preTokenize(t.normalize(text)) {
		for _, id := range t.word(w) {
			if len(ids) == limit {
				return ids
			}
			ids = append(ids, id)
		}
	}
	return ids
}

func (t *wordPiece) normalize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == 0 || r == unicode.ReplacementChar || (unicode.IsControl(r) && !unicode.IsSpace(r)):
			continue
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case unicode.Is(unicode.Han, r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	s = b.String()
	if t.strip {
		var d strings.Builder
		for _, r := range unorm.NFD.String(s) {
			if !unicode.Is(unicode.Mn, r) {
				d.WriteRune(r)
			}
		}
		s = d.String()
	}
	if t.lowercase {
		s = strings.ToLower(s)
	}
	return s
}

// isBertPunct is BERT's punctuation: Unicode P* and the ASCII symbols.
func isBertPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return unicode.IsPunct(r)
}

func (t *wordPiece) preTokenize(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		start := 0
		for i, r := range f {
			if isBertPunct(r) {
				if i > start {
					out = append(out, f[start:i])
				}
				out = append(out, string(r))
				start = i + len(string(r))
			}
		}
		if start < len(f) {
			out = append(out, f[start:])
		}
	}
	return out
}

// word splits one pre-token into WordPiece ids; a word that cannot be
// split (or is too long) is the unknown token, which is dropped.
func (t *wordPiece) word(w string) []int {
	rs := []rune(w)
	if len(rs) > t.maxChars {
		return nil
	}
	var ids []int
	for start := 0; start < len(rs); {
		end, id := len(rs), -1
		for ; end > start; end-- {
			piece := string(rs[start:end])
			if start > 0 {
				piece = t.prefix + piece
			}
			if v, ok := t.vocab[piece]; ok {
				id = v
				break
			}
		}
		if id < 0 {
			return nil
		}
		ids = append(ids, id)
		start = end
	}
	return ids
}
