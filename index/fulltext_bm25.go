package index

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/blugelabs/bluge"
	blugesearch "github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"

	"github.com/gloss-dev/gloss/index/bm25"

	"github.com/gloss-dev/gloss/internal/syncx"
)

// BM25Fields returns the analyzed fields of d as the full-text index
// makes them (the English analyzer; a field's length is its token count,
// repeats included, as bluge.TermField.Analyze counts it), for a
// bm25.Index, in field name order. Tokens are made in a pooled buffer
// (tokenize, as textField.Analyze makes them): the terms and counts are
// the analyzer's (TestBM25FieldsSameAsAnalyzer). The fields' terms are
// counted in the pooled buffer and copied into one slice for the whole
// document, as long as its distinct terms (a slice per field as long as
// its tokens was the largest allocation of a batch's analysis, 0.29 GB per
// +80,000 memories, docs/benchmarks.md).
func BM25Fields(d Doc) []bm25.Field {
	names := make([]string, 0, len(d.Fields))
	for name := range d.Fields {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]bm25.Field, 0, len(names))
	buf := tokenBufs.Get().(*tokenBuf)
	most := 0 // distinct terms of a field, at most
	all := buf.counted[:0]
	ends := make([]int, len(names)) // the end of each field's terms in all
	for f, name := range names {
		buf.src = append(buf.src[:0], d.Fields[name]...)
		tokens := buf.analyzeStrings(buf.src)
		// Distinct terms in first-occurrence order, counted through the
		// pooled map; the strings are the analyzer memo's.
		start := len(all)
		for _, term := range buf.strs {
			if i, ok := buf.index[term]; ok {
				all[i].TF++
				continue
			}
			buf.index[term] = len(all)
			all = append(all, bm25.TermFreq{Term: term, TF: 1})
		}
		most = max(most, len(all)-start)
		out = append(out, bm25.Field{Name: name, Length: len(tokens)})
		ends[f] = len(all)
		for _, t := range all[start:] {
			delete(buf.index, t.Term) // as many deletes as keys (tokenBuf.empty)
		}
		buf.empty()
	}
	terms := slices.Clone(all)
	for f, start := 0, 0; f < len(out); f++ {
		out[f].Terms = terms[start:ends[f]:ends[f]]
		start = ends[f]
	}
	clear(all)
	buf.counted = all[:0]
	buf.release(most)
	return out
}

// bm25FieldsOf returns BM25Fields of each of docs, analyzed on up to
// GOMAXPROCS goroutines when there are enough of them to share (the
// analysis of a memory write's documents is most of its CPU).
func bm25FieldsOf(docs []Doc) [][]bm25.Field {
	out := make([][]bm25.Field, len(docs))
	_ = syncx.Ranges(len(docs), 64, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			out[i] = BM25Fields(docs[i])
		}
		return nil
	})
	return out
}

// BM25Clauses returns the clauses of a bm25.Index search that score as
// FullText.Search scores q: for each text and field, each analyzed token
// of the text weighted β², β = the field's boost × the text's weight
// (Bluge's match query applies β to each term and again to their sum:
// bm25.Index.Search).
func BM25Clauses(q Query) []bm25.Clause {
	fields := make([]string, 0, len(q.Fields))
	for field := range q.Fields {
		fields = append(fields, field)
	}
	sort.Strings(fields)
	var out []bm25.Clause
	for _, t := range q.Texts {
		toks := analyzer().Analyze([]byte(t.Text))
		for _, field := range fields {
			beta := q.Fields[field] * t.Weight
			for _, tok := range toks {
				out = append(out, bm25.Clause{Field: field, Term: string(tok.Term), Weight: beta * beta})
			}
		}
	}
	return out
}

// LoadBM25 reads the live documents of the index into a bm25.Index: their
// ids (the _id field), for each of fields every term's postings with
// their frequencies and field lengths (Bluge's norms), and Bluge's
// statistics of the field (CollectionStats), so that the bm25.Index ranks
// as this index does. It reads the snapshot a search would; at 100,000
// memories it is a pass over every posting of the index.
func (f *FullText) LoadBM25(ctx context.Context, fields []string) (out *bm25.Index, err error) {
	defer Recover(f.dir, "load full-text index", &err)
	r, release, err := f.snapshot()
	if err != nil {
		return nil, err
	}
	defer release()
	q := &exportQuery{fn: func(sr blugesearch.Reader) error {
		out, err = loadBM25(sr, fields)
		return err
	}}
	it, err := r.Search(ctx, bluge.NewTopNSearch(1, q))
	if err != nil {
		return nil, err
	}
	for { // drain the (empty) result
		dm, err := it.Next()
		if err != nil {
			return nil, err
		}
		if dm == nil {
			break
		}
	}
	if out == nil {
		return nil, fmt.Errorf("load full-text index %s: not read", f.dir)
	}
	return out, nil
}

// exportQuery is a Bluge query that only hands the searched snapshot to
// fn: the public way to reach its dictionaries and postings
// (search.Reader), which bluge.Reader does not expose. It matches nothing.
type exportQuery struct {
	fn func(blugesearch.Reader) error
}

// Searcher implements bluge.Query.
func (q *exportQuery) Searcher(i blugesearch.Reader, options blugesearch.SearcherOptions) (blugesearch.Searcher, error) {
	if err := q.fn(i); err != nil {
		return nil, err
	}
	return searcher.NewMatchNoneSearcher(i, options)
}

// loadBM25 reads r into a bm25.Index (LoadBM25).
func loadBM25(r blugesearch.Reader, fields []string) (*bm25.Index, error) {
	type doc struct {
		num uint64
		id  string
	}
	var docs []doc
	err := eachTerm(r, "_id", func(term string) error {
		it, err := r.PostingsIterator([]byte(term), "_id", false, false, false)
		if err != nil {
			return err
		}
		defer func() { _ = it.Close() }() // recycled with its dictionaries: a new one per term opened every segment's
		for {
			p, err := it.Next()
			if err != nil {
				return err
			}
			if p == nil {
				return nil
			}
			docs = append(docs, doc{p.Number(), term})
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].num < docs[j].num })
	ids := make([]string, len(docs))
	var local []uint32 // Bluge's document number -> ours + 1; 0: none (deleted)
	if len(docs) > 0 {
		local = make([]uint32, docs[len(docs)-1].num+1)
	}
	for i, d := range docs {
		ids[i] = d.id
		local[d.num] = uint32(i) + 1
	}
	b := bm25.NewBuilder(ids, fields)
	for _, field := range fields {
		cs, err := r.CollectionStats(field)
		if err != nil {
			return nil, err
		}
		if cs != nil { // nil for an index of no segment
			b.Stats(field, int(cs.DocumentCount()), cs.SumTotalTermFrequency())
		}
		err = eachTerm(r, field, func(term string) error {
			it, err := r.PostingsIterator([]byte(term), field, true, true, false)
			if err != nil {
				return err
			}
			defer func() { _ = it.Close() }()
			for {
				p, err := it.Next()
				if err != nil {
					return err
				}
				if p == nil {
					return nil
				}
				num := p.Number()
				if num >= uint64(len(local)) || local[num] == 0 {
					continue // no live _id: not a document of ours
				}
				n := local[num] - 1
				// Bluge stores a field's length as the bits of a float32
				// (BM25Similarity.ComputeNorm).
				length := math.Float32bits(float32(p.Norm()))
				b.Posting(field, term, n, uint32(p.Frequency()), length)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return b.Index(), nil
}

// eachTerm calls fn with every term of field's dictionary in r.
func eachTerm(r blugesearch.Reader, field string, fn func(term string) error) error {
	it, err := r.DictionaryIterator(field, nil, nil, nil)
	if err != nil {
		return err
	}
	defer func() { _ = it.Close() }()
	for {
		e, err := it.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return nil
		}
		if err := fn(e.Term()); err != nil {
			return err
		}
	}
}
