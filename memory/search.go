package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/blugelabs/bluge"

	"github.com/gloss-dev/gloss/scip"
)

// searchSchema versions the Bluge document layout. A directory written
// with another version, or one that cannot be opened, is rebuilt from
// Pebble (the store of record).
const searchSchema = "1"

// searchIndex is the derived full-text (BM25) index of memories.
type searchIndex struct {
	dir    string
	writer *bluge.Writer
}

// openSearch opens the Bluge index, rebuilding it from Pebble when it is
// missing, of another schema, unreadable, or out of step with the store
// (document count differs, e.g. after a crash between the two writes).
func (w *Workspace) openSearch() (*searchIndex, error) {
	if w.search != nil {
		return w.search, nil
	}
	dir := filepath.Join(w.Dir, "bluge")
	mems, err := w.List()
	if err != nil {
		return nil, err
	}
	schema, _ := os.ReadFile(filepath.Join(dir, "gloss-schema"))
	var s *searchIndex
	if strings.TrimSpace(string(schema)) == searchSchema {
		if wr, err := bluge.OpenWriter(bluge.DefaultConfig(dir)); err == nil {
			s = &searchIndex{dir: dir, writer: wr}
			if n, err := s.count(); err != nil || n != uint64(len(mems)) {
				_ = wr.Close()
				s = nil
			}
		}
	}
	if s == nil {
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("reset search index: %w", err)
		}
		wr, err := bluge.OpenWriter(bluge.DefaultConfig(dir))
		if err != nil {
			return nil, fmt.Errorf("open search index: %w", err)
		}
		s = &searchIndex{dir: dir, writer: wr}
		if err := s.update(mems, nil); err != nil {
			_ = wr.Close()
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "gloss-schema"), []byte(searchSchema+"\n"), 0o600); err != nil {
			_ = wr.Close()
			return nil, err
		}
	}
	w.search = s
	return s, nil
}

func (s *searchIndex) count() (uint64, error) {
	r, err := s.writer.Reader()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return r.Count()
}

func (s *searchIndex) close() error { return s.writer.Close() }

func (s *searchIndex) update(mems []*Memory, deleted []string) error {
	b := bluge.NewBatch()
	for _, m := range mems {
		doc := bluge.NewDocument(m.ID).
			AddField(bluge.NewTextField("title", m.Title)).
			AddField(bluge.NewTextField("body", m.Body)).
			AddField(bluge.NewTextField("tags", strings.Join(m.Tags, " "))).
			AddField(bluge.NewTextField("type", m.Type))
		var syms, paths []string
		for _, a := range m.Anchors {
			if a.Symbol != "" {
				p, err := scip.Parse(a.Symbol)
				if err == nil {
					for _, d := range p.Descriptors {
						syms = append(syms, d.Name, SplitIdentifier(d.Name))
					}
				}
			}
			paths = append(paths, a.Path, SplitIdentifier(a.Path))
		}
		doc.AddField(bluge.NewTextField("symbols", strings.Join(syms, " ")))
		doc.AddField(bluge.NewTextField("paths", strings.Join(paths, " ")))
		b.Update(doc.ID(), doc)
	}
	for _, id := range deleted {
		b.Delete(bluge.Identifier(id))
	}
	return s.writer.Batch(b)
}

// indexSearch applies memory changes to the derived search index. Failures
// do not fail the caller (Pebble already holds the truth); the index is
// marked for rebuild instead.
func (w *Workspace) indexSearch(mems []*Memory, deleted []string) {
	w.searchMu.Lock()
	defer w.searchMu.Unlock()
	s, err := w.openSearch()
	if err == nil {
		err = s.update(mems, deleted)
	}
	if err != nil {
		_ = os.Remove(filepath.Join(w.Dir, "bluge", "gloss-schema"))
	}
}

// SearchHit is one search result.
type SearchHit struct {
	Memory *Memory `json:"memory"`
	// Score is Bluge's BM25 score (higher is better), lowered by half for
	// stale memories, which are labelled but never hidden.
	Score float64 `json:"score"`
}

// Search runs a BM25 query over memory titles (boost 3), tags and anchor
// symbol names (boost 2), bodies and paths (boost 1). Identifiers are
// split into words on the index side, so "file upload" finds
// createFileUploads. It returns at most limit hits, best first.
func (w *Workspace) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, fmt.Errorf("empty search query")
	}
	limit = clampSearchLimit(limit)
	r, err := w.searchReader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	q := bluge.NewBooleanQuery()
	for field, boost := range map[string]float64{"title": 3, "tags": 2, "symbols": 2, "body": 1, "paths": 1, "type": 1} {
		q.AddShould(bluge.NewMatchQuery(query).SetField(field).SetBoost(boost))
		q.AddShould(bluge.NewMatchQuery(SplitIdentifier(query)).SetField(field).SetBoost(boost / 2))
	}
	req := bluge.NewTopNSearch(limit*2, q)
	it, err := r.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	var hits []SearchHit
	for {
		dm, err := it.Next()
		if err != nil {
			return nil, err
		}
		if dm == nil {
			break
		}
		var id string
		_ = dm.VisitStoredFields(func(field string, value []byte) bool {
			if field == "_id" {
				id = string(value)
				return false
			}
			return true
		})
		m, err := w.get(id)
		if err != nil {
			continue
		}
		score := dm.Score
		if m.Stale() {
			score /= 2
		}
		hits = append(hits, SearchHit{Memory: m, Score: score})
	}
	sortHits(hits)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

func sortHits(h []SearchHit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].Score > h[j-1].Score; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// SplitIdentifier splits camelCase, PascalCase, snake_case, kebab-case and
// path-like identifiers into lower-case words: "createFileUploads" →
// "create file uploads", "HTTPServer_v2" → "http server v 2"... digits
// and letters are separated.
func SplitIdentifier(s string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			// Break before an upper-case letter that follows a lower-case
			// one, or that starts a word after an acronym (HTTPServer).
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || (unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				flush()
			}
			cur = append(cur, r)
		case unicode.IsDigit(r):
			if i > 0 && !unicode.IsDigit(rs[i-1]) {
				flush()
			}
			cur = append(cur, r)
		default:
			if i > 0 && unicode.IsDigit(rs[i-1]) {
				flush()
			}
			cur = append(cur, r)
		}
	}
	flush()
	return strings.Join(words, " ")
}

// OpenSearch opens the derived full-text index now, rebuilding it from the
// store when it is missing, corrupt, of an older schema or out of step with
// the store (otherwise that happens at the first search). The daemon calls
// it at start. It returns the error of reading the store or writing the
// index.
func (w *Workspace) OpenSearch() error {
	w.searchMu.Lock()
	defer w.searchMu.Unlock()
	_, err := w.openSearch()
	return err
}
