package index

import "context"

// Doc is one document of a derived index: an id (a memory id, or a
// symbol) and named text fields.
type Doc struct {
	ID     string
	Fields map[string]string
	// Text is what a vector index embeds of a document without Fields
	// (nil), instead of Fields[VectorText]: a map for one field was
	// about 300 bytes per document, 31 MB of the 100,000 documents a
	// re-embedding holds (docs/benchmarks.md, session 21). Full-text
	// indexes read Fields only.
	Text string
}

// Query is a search of a derived index: each of Texts matched against
// each of Fields, weighted by the text's Weight times the field's boost (a
// field missing from Fields is not searched); at most Limit hits.
type Query struct {
	Texts  []Text
	Fields map[string]float64
	Limit  int
}

// Text is one weighted query text of a Query.
type Text struct {
	Text   string
	Weight float64
}

// Scored is one hit of a derived index: a document id and its score
// (higher is better; the scale is the index's own).
type Scored struct {
	ID    string
	Score float64
}

// Derived is the seam every derived index implements (the Bluge full-text
// index, FullText, today; vector indexes next). Derived indexes are never
// the truth: the store of record is, and a derived index that is missing,
// corrupt, of another schema or out of step is rebuilt from it.
//
// Each index records the generation of the store it reflects
// (Store.MemoryGeneration); opening compares it with the store's and
// rebuilds when they differ, without reading every record.
type Derived interface {
	// Update applies changed documents (added or replaced by id) and
	// deleted ids in one batch, which brings the index to generation gen.
	Update(docs []Doc, deleted []string, gen uint64) error
	// Rebuild replaces the whole index by docs, at generation gen.
	Rebuild(docs []Doc, gen uint64) error
	// Generation returns the generation the index reflects; ok is false
	// when it is unknown (an index that must be rebuilt).
	Generation() (gen uint64, ok bool)
	// Invalidate marks the index for a rebuild when it is next opened
	// (after a failed Update: the store already holds the truth).
	Invalidate()
	// Count returns the number of documents indexed.
	Count() (uint64, error)
	// Search returns the best hits of q, best first; ties are broken by id
	// ascending so that rankings are stable.
	Search(ctx context.Context, q Query) ([]Scored, error)
	// Close releases the index.
	Close() error
}
