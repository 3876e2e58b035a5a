package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/analysis"
	blugesearch "github.com/blugelabs/bluge/search"
)

// english is the analyzer of every field and query: Unicode word
// tokenizer, lower case, English possessives, stop words and Porter
// (snowball) stemming (bluge analysis/lang/en, its stemmer memoized:
// newEnglish), so "alerts" finds "alert" and "the" finds nothing.
var english = newEnglish()

// englishMemo is english's one token filter, the memoized English chain.
var englishMemo = english.TokenFilters[0].(*termMemo)

// analyzer returns the analyzer of text fields and queries.
func analyzer() *analysis.Analyzer { return english }

// FullText is the Bluge (BM25) derived index of one directory. It reads
// an existing index without a writer until the first write
// (fulltext_open.go). Methods are safe for concurrent use.
type FullText struct {
	dir    string
	schema string

	mu      sync.Mutex
	writer  *bluge.Writer // nil until the first write
	reader  *bluge.Reader // the index as opened, while there is no writer
	readers int           // searches using reader
}

var _ Derived = (*FullText)(nil)

// schemaFile records the document layout version a directory was written
// with; genFile the store generation it reflects.
const (
	schemaFile = "gloss-schema"
	genFile    = "gloss-generation"
)

// OpenFullText opens the full-text index in dir written with document
// layout schema. ok is false when dir is missing, unreadable or of another
// schema: the index is then new and empty, and the caller must Rebuild it.
func OpenFullText(dir, schema string) (ft *FullText, ok bool, err error) {
	old, _ := os.ReadFile(filepath.Join(dir, schemaFile))
	if strings.TrimSpace(string(old)) == schema {
		if ft, err := openFullTextReader(dir, schema); err == nil {
			return ft, true, nil
		}
		if wr, err := bluge.OpenWriter(bluge.DefaultConfig(dir)); err == nil {
			return &FullText{dir: dir, schema: schema, writer: wr}, true, nil
		}
	}
	ft, err = newFullText(dir, schema)
	return ft, false, err
}

func newFullText(dir, schema string) (*FullText, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("reset full-text index: %w", err)
	}
	wr, err := bluge.OpenWriter(bluge.DefaultConfig(dir))
	if err != nil {
		return nil, fmt.Errorf("open full-text index: %w", err)
	}
	return &FullText{dir: dir, schema: schema, writer: wr}, nil
}

// Update implements Derived.
func (f *FullText) Update(docs []Doc, deleted []string, gen uint64) error {
	if err := f.update(docs, deleted); err != nil {
		return err
	}
	return f.setGeneration(gen)
}

// setGeneration records gen (write to a temporary file, then rename).
func (f *FullText) setGeneration(gen uint64) error {
	tmp := filepath.Join(f.dir, genFile+".tmp")
	if err := os.WriteFile(tmp, []byte(strconv.FormatUint(gen, 10)+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(f.dir, genFile))
}

// Generation implements Derived.
func (f *FullText) Generation() (uint64, bool) {
	data, err := os.ReadFile(filepath.Join(f.dir, genFile))
	if err != nil {
		return 0, false
	}
	gen, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return gen, err == nil
}

func (f *FullText) update(docs []Doc, deleted []string) (err error) {
	defer Recover(f.dir, "update full-text index", &err)
	b := bluge.NewBatch()
	for _, d := range docs {
		doc := bluge.NewDocument(d.ID)
		names := make([]string, 0, len(d.Fields))
		for name := range d.Fields {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			doc.AddField(newTextField(name, d.Fields[name]))
		}
		b.Update(doc.ID(), doc)
	}
	for _, id := range deleted {
		b.Delete(bluge.Identifier(id))
	}
	wr, err := f.openWriter()
	if err != nil {
		return err
	}
	return wr.Batch(b)
}

// Rebuild implements Derived: the directory is emptied, docs indexed, and
// the schema recorded last, so an interrupted rebuild is redone.
func (f *FullText) Rebuild(docs []Doc, gen uint64) error {
	_ = f.closeAll()
	nf, err := newFullText(f.dir, f.schema)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.writer = nf.writer
	f.mu.Unlock()
	for len(docs) > 0 { // in batches of 1,000, for bounded memory
		n := min(len(docs), 1000)
		if err := f.update(docs[:n], nil); err != nil {
			return err
		}
		docs = docs[n:]
	}
	if err := f.setGeneration(gen); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(f.dir, schemaFile), []byte(f.schema+"\n"), 0o600)
}

// Invalidate implements Derived: the schema and generation files go, so
// the next OpenFullText reports the index as not ok.
func (f *FullText) Invalidate() {
	_ = os.Remove(filepath.Join(f.dir, schemaFile))
	_ = os.Remove(filepath.Join(f.dir, genFile))
}

// Count implements Derived.
func (f *FullText) Count() (uint64, error) {
	r, release, err := f.snapshot()
	if err != nil {
		return 0, err
	}
	defer release()
	return r.Count()
}

// Search implements Derived: a Bluge boolean "should" query of one match
// query per text and field, boosted by the product of their weights; BM25
// scores.
func (f *FullText) Search(ctx context.Context, q Query) (out []Scored, err error) {
	defer Recover(f.dir, "search", &err)
	r, release, err := f.snapshot()
	if err != nil {
		return nil, err
	}
	defer release()
	// Clauses in a fixed (sorted field) order: the boolean query sums
	// clause scores in order, and a map's random order changed the last
	// bits of equal-looking scores, and so the ranking, between runs.
	fields := make([]string, 0, len(q.Fields))
	for field := range q.Fields {
		fields = append(fields, field)
	}
	sort.Strings(fields)
	bq := bluge.NewBooleanQuery()
	for _, t := range q.Texts {
		for _, field := range fields {
			bq.AddShould(bluge.NewMatchQuery(t.Text).SetField(field).SetAnalyzer(analyzer()).SetBoost(q.Fields[field] * t.Weight))
		}
	}
	it, err := r.Search(ctx, bluge.NewTopNSearch(max(q.Limit, 1), bq).SortByCustom(scoreOrder()))
	if err != nil {
		return nil, err
	}
	err = eachHit(it, func(id string, score float64) { out = append(out, Scored{ID: id, Score: score}) })
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Close implements Derived.
func (f *FullText) Close() error { return f.closeAll() }

// UpdateUnsaved applies docs and deleted like Update, for documents that
// are not in the store of record (an editor's unsaved buffer): the
// generation is removed first, so the index counts as out of step (and is
// rebuilt when next opened) until an Update records a generation again.
func (f *FullText) UpdateUnsaved(docs []Doc, deleted []string) error {
	if err := os.Remove(filepath.Join(f.dir, genFile)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return f.update(docs, deleted)
}

// IDsWithPrefix returns the ids of the indexed documents whose id starts
// with prefix, in id order (a Bluge prefix query on the _id field).
func (f *FullText) IDsWithPrefix(ctx context.Context, prefix string) (ids []string, err error) {
	defer Recover(f.dir, "search", &err)
	r, release, err := f.snapshot()
	if err != nil {
		return nil, err
	}
	defer release()
	q := bluge.NewPrefixQuery(prefix).SetField("_id")
	it, err := r.Search(ctx, bluge.NewAllMatches(q))
	if err != nil {
		return nil, err
	}
	err = eachHit(it, func(id string, _ float64) {
		if id != "" {
			ids = append(ids, id)
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(ids)
	return ids, nil
}

// eachHit calls fn with the stored _id and the score of every hit of it,
// in the iterator's order; it returns the iterator's error.
func eachHit(it blugesearch.DocumentMatchIterator, fn func(id string, score float64)) error {
	for {
		dm, err := it.Next()
		if err != nil || dm == nil {
			return err
		}
		var id string
		_ = dm.VisitStoredFields(func(field string, value []byte) bool {
			if field == "_id" {
				id = string(value)
				return false
			}
			return true
		})
		fn(id, dm.Score)
	}
}

// Terms returns the terms the full-text index makes of text: the English
// analyzer's tokens (lower case, stop words removed, Porter stemming), in
// order, repeats kept.
func Terms(text string) []string {
	var out []string
	for _, t := range analyzer().Analyze([]byte(text)) {
		out = append(out, string(t.Term))
	}
	return out
}
