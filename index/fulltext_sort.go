package index

import (
	"encoding/binary"

	"github.com/blugelabs/bluge/numeric"
	blugesearch "github.com/blugelabs/bluge/search"
)

// scoreOrder returns the sort of FullText.Search's top-n collection: by
// score, descending, then by Bluge's hit number (the order the searcher
// found the documents in), as bluge.NewTopNSearch's default
// (search.DocumentScore) sorts, with a cheaper key. Bluge v0.2.2 computes
// each matching document's key (search.SortOrder.Compute) as the
// prefix-coded int64 of numeric.Float64ToInt64(score) (11 bytes made by a
// loop of 7-bit groups, numeric.NewPrefixCodedInt64), a tenth of a CLI
// search's Bluge time at 100,000 memories (pprof, docs/benchmarks.md).
// scoreKey's key is the 8 big-endian bytes of the same sortable bits, so
// bytes.Compare orders any two documents as the prefix-coded keys do
// (both are the unsigned order of Float64ToInt64(score) ^ 1<<63), and ties
// (equal scores) fall to the hit number as before: the same documents,
// in the same order (TestScoreOrderMatchesBluge). A new order per search:
// its key buffer is the search's own.
func scoreOrder() blugesearch.SortOrder {
	return blugesearch.SortOrder{blugesearch.SortBy(&scoreKey{}).Desc()}
}

// scoreKey is the search.TextValueSource of scoreOrder.
type scoreKey struct {
	buf [8]byte
}

// Fields implements search.TextValueSource: the key needs no stored or
// doc-value field.
func (*scoreKey) Fields() []string { return nil }

// Value implements search.TextValueSource: the 8 big-endian bytes of
// uint64(numeric.Float64ToInt64(d.Score)) ^ 1<<63. The slice is k's
// buffer, valid until the next call: SortOrder.Compute copies it at once
// (bluge v0.2.2 search/sort.go), and a collector computes one document's
// key at a time.
func (k *scoreKey) Value(d *blugesearch.DocumentMatch) []byte {
	binary.BigEndian.PutUint64(k.buf[:], uint64(numeric.Float64ToInt64(d.Score))^(1<<63))
	return k.buf[:]
}
