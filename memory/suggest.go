package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/ident"
)

// AnchorSuggestion is a place a memory's text mentions, offered as an
// anchor: a definition (Symbol set) or a whole file.
type AnchorSuggestion struct {
	Symbol string `json:"symbol,omitempty"`
	Name   string `json:"name,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Path   string `json:"path"`
	// StartLine and EndLine are 1-based and inclusive.
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// Why says what in the text suggested it.
	Why string `json:"why"`
}

// maxSuggestions bounds the anchors SuggestAnchors offers.
const maxSuggestions = 20

// pathLike matches workspace paths a text may mention: a name with a
// source or document extension, or slash-separated segments.
var pathLike = regexp.MustCompile(`[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*\.[A-Za-z0-9]{1,5}|[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+`)

// SuggestAnchors matches the identifiers and paths text mentions against
// the symbol index: identifier-like words (see QuerySymbols) naming at
// most maxNamedDefs definitions, and paths of indexed files. Suggestions are in the order
// of the text, each place once, at most maxSuggestions.
func (w *Workspace) SuggestAnchors(text string) ([]AnchorSuggestion, error) {
	var out []AnchorSuggestion
	seen := map[string]bool{}
	for _, p := range pathLike.FindAllString(text, -1) {
		p = strings.TrimSuffix(strings.TrimPrefix(p, "./"), ".")
		if seen[p] || len(out) >= maxSuggestions {
			continue
		}
		seen[p] = true
		meta, err := w.Store.File(p)
		if err != nil {
			return nil, err
		}
		if meta == nil {
			continue
		}
		n := 1
		if src, err := os.ReadFile(filepath.Join(w.Root, filepath.FromSlash(p))); err == nil {
			n = max(1, index.NewLines(src).Count())
		}
		out = append(out, AnchorSuggestion{Path: p, StartLine: 1, EndLine: n, Why: fmt.Sprintf("the text mentions the file %s", p)})
	}
	defs, err := w.mentionedDefs(text)
	if err != nil {
		return nil, err
	}
	for _, md := range defs {
		d := md.def
		if seen[d.Symbol] || len(out) >= maxSuggestions {
			continue
		}
		seen[d.Symbol] = true
		why := fmt.Sprintf("the text mentions %s", md.word)
		if md.of > 1 {
			why += fmt.Sprintf(" (one of %d definitions of that name)", md.of)
		}
		out = append(out, AnchorSuggestion{Symbol: d.Symbol, Name: d.Name, Kind: d.Kind, Path: d.Path,
			StartLine: d.Range.StartLine + 1, EndLine: d.Range.LastLine() + 1, Why: why})
	}
	return out, nil
}

// mentionedDef is a definition a text names by word, one of of
// definitions of that name.
type mentionedDef struct {
	def  index.Definition
	word string
	of   int
	// strong is true for a word in backquotes or shaped like code (an
	// inner capital, an underscore, a digit, a qualifier), false for a
	// word that is only capitalized ("Args", which prose also writes).
	strong bool
}

// mentionedDefs returns the definitions named by identifier-like words
// of text, in text order.
func (w *Workspace) mentionedDefs(text string) ([]mentionedDef, error) {
	var out []mentionedDef
	seen := map[string]bool{}
	for _, tok := range identLike.FindAllString(text, -1) {
		quoted := strings.HasPrefix(tok, "`")
		tok = strings.TrimSuffix(strings.Trim(tok, "`"), "()")
		if seen[tok] || len(tok) < minSeedNameLength || (!quoted && !looksLikeIdentifier(tok)) {
			continue
		}
		seen[tok] = true
		defs, err := w.namedDefs(tok)
		if err != nil {
			return nil, err
		}
		strong := quoted || strings.ContainsAny(tok, "_.#0123456789") || strings.ToLower(tok[1:]) != tok[1:]
		for _, d := range defs {
			out = append(out, mentionedDef{def: d, word: tok, of: len(defs), strong: strong})
		}
	}
	return out, nil
}

// uniqueMentionedSymbol returns the SCIP symbol of the one definition the
// text mentions by a word shaped like code (mentionedDef.strong), or
// when there is none the one it mentions by a capitalized word; "" when it
// mentions none or several. n is the number of distinct definitions
// mentioned.
func (w *Workspace) uniqueMentionedSymbol(text string) (sym string, n int, err error) {
	defs, err := w.mentionedDefs(text)
	if err != nil {
		return "", 0, err
	}
	all, strong := map[string]bool{}, map[string]bool{}
	var strongSym string
	for _, d := range defs {
		all[d.def.Symbol] = true
		sym = d.def.Symbol
		if d.strong {
			strong[d.def.Symbol] = true
			strongSym = d.def.Symbol
		}
	}
	switch {
	case len(strong) == 1:
		return strongSym, len(all), nil
	case len(strong) == 0 && len(all) == 1:
		return sym, 1, nil
	}
	return "", len(all), nil
}

// autoAnchor places a request with AutoAnchor that names no place: on
// the one definition m's title and text mention, else nowhere; it sets
// m.Placement.
func (w *Workspace) autoAnchor(req *RememberRequest, m *Memory) error {
	if !req.AutoAnchor || req.Path != "" || req.Symbol != "" {
		return nil
	}
	sym, n, err := w.uniqueMentionedSymbol(m.Title + "\n" + m.Body)
	switch {
	case err != nil:
		return err
	case sym != "":
		req.Symbol = sym
		m.Placement = "anchored to " + sym + ", the one definition the text names"
	case n == 0:
		req.Unanchored = true
		m.Placement = "workspace-level: no place given and the text mentions no definition"
	default:
		req.Unanchored = true
		m.Placement = fmt.Sprintf("workspace-level: no place given and the text mentions %d definitions (gloss.suggestAnchors lists them)", n)
	}
	return nil
}

// maxDuplicateChecks is the largest batch whose memories are checked for
// near-duplicates (NearDuplicates) before they are stored; imports of
// many memories skip the check.
const maxDuplicateChecks = 100

// Duplicate is an existing memory whose text is close to a new one's.
type Duplicate struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Similarity is TextSimilarity of the two memories' titles and bodies
	// (0..1).
	Similarity float64 `json:"similarity"`
	// VectorSimilarity is the cosine similarity of the new memory's title
	// and body with the existing memory's contextual text in the vector
	// index (NearestMemories; the embedder's
	// FusionProfile.NearDuplicateCosine and above is a near-duplicate), 0
	// when it is not among the nearest or vectors are off.
	VectorSimilarity float64 `json:"vector_similarity,omitempty"`
	// SameAnchor is true when the two share an anchored symbol or file,
	// or both have no anchor.
	SameAnchor bool `json:"same_anchor"`
}

// DuplicateThreshold is the TextSimilarity from which a memory is
// reported as a near-duplicate. Measured on hand-made pairs
// (TestDuplicateThreshold): rewordings of one note scored 0.57–0.89,
// different notes on the same code 0.05–0.13; the threshold is about
// halfway.
const DuplicateThreshold = 0.35

// TextSimilarity is the Jaccard index of the sets of terms (index.Terms:
// stop words removed, stemmed; identifiers also split into words) of a
// and b: |A ∩ B| / |A ∪ B|, 0 when both are empty.
func TextSimilarity(a, b string) float64 {
	sa, sb := termSet(a), termSet(b)
	if len(sa) == 0 && len(sb) == 0 {
		return 0
	}
	inter := 0
	for t := range sa {
		if sb[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

func termSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range index.Terms(s + " " + ident.Split(s)) {
		out[t] = true
	}
	return out
}

// NearDuplicates returns the stored memories whose title and body are at
// least DuplicateThreshold similar to m's (TextSimilarity) or whose vector
// is at least the embedder's near-duplicate cosine similar
// (FusionProfile.NearDuplicateCosine; NearestMemories), most similar
// first (the larger of the two), ties by id. Candidates are the memories
// anchored in m's files, the 20 best BM25 matches of m's text and its
// duplicateNeighbors nearest vectors.
func (w *Workspace) NearDuplicates(ctx context.Context, m *Memory) ([]Duplicate, error) {
	cands := map[string]bool{}
	for _, a := range m.Anchors {
		ids, err := w.Store.MemoryIDsAt(a.Path)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			cands[id] = true
		}
	}
	scored, err := w.textRanking(ctx, m.Title+"\n"+m.Body, 20)
	if err != nil {
		return nil, err
	}
	for _, sc := range scored {
		cands[sc.ID] = true
	}
	text := m.Title + "\n" + m.Body
	cosine := map[string]float64{}
	if near, err := w.NearestMemories(ctx, text, duplicateNeighbors); err == nil { // no vectors: text alone
		for _, sc := range near {
			cands[sc.ID], cosine[sc.ID] = true, sc.Score
		}
	}
	profile, err := w.FusionProfile()
	if err != nil {
		return nil, err
	}
	nearCosine := profile.NearDuplicateCosine
	var out []Duplicate
	for id := range cands {
		if id == m.ID {
			continue
		}
		o, err := w.get(id)
		if err != nil {
			continue
		}
		sim := TextSimilarity(text, o.Title+"\n"+o.Body)
		if sim >= DuplicateThreshold || cosine[id] >= nearCosine {
			out = append(out, Duplicate{ID: o.ID, Title: o.Title, Similarity: sim, VectorSimilarity: cosine[id], SameAnchor: sameAnchor(m, o)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := max(out[i].Similarity, out[i].VectorSimilarity), max(out[j].Similarity, out[j].VectorSimilarity)
		if a != b {
			return a > b
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// duplicateNeighbors is how many nearest vectors NearDuplicates compares.
const duplicateNeighbors = 10

// sameAnchor reports whether a and b share an anchored symbol or file, or
// both have no anchor.
func sameAnchor(a, b *Memory) bool {
	if len(a.Anchors) == 0 && len(b.Anchors) == 0 {
		return true
	}
	for _, x := range a.Anchors {
		for _, y := range b.Anchors {
			if (x.Symbol != "" && x.Symbol == y.Symbol) || x.Path == y.Path {
				return true
			}
		}
	}
	return false
}
