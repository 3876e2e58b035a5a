package memory

import "github.com/gloss-dev/gloss/internal/decodecache"

// maxDecoded and maxDecodedBytes bound the decoded-record cache of a
// workspace: 50,000 records, 16 MiB of their stored bytes (about 7,000
// records of prometheus's 2.3 KB; the decoded copies take about as much
// again). Without the byte bound a check that re-resolved 51,000
// memories kept about 250 MB of records it had just rewritten
// (docs/benchmarks.md, session 20).
const (
	maxDecoded      = 50_000
	maxDecodedBytes = 16 << 20
)

// newDecodedCache returns a workspace's cache of decoded memory records
// by id: a read whose stored bytes are unchanged returns a private copy
// of the decoded memory (Memory.private). Every open document's
// resolution reads all memories anchored in it on every keystroke;
// decoding them dominated that cost.
func newDecodedCache() *decodecache.Cache[*Memory] {
	return &decodecache.Cache[*Memory]{MaxEntries: maxDecoded, MaxBytes: maxDecodedBytes, Copy: (*Memory).private}
}

// private returns a copy of m that shares no writable storage with it:
// the anchors are copied, and every slice is capped at its length, so an
// append reallocates instead of writing into the shared array.
func (m *Memory) private() *Memory {
	c := *m
	c.Tags = c.Tags[:len(c.Tags):len(c.Tags)]
	c.Relations = c.Relations[:len(c.Relations):len(c.Relations)]
	if m.Anchors == nil {
		return &c
	}
	c.Anchors = make([]Anchor, len(m.Anchors))
	for i, a := range m.Anchors {
		a.Tokens = a.Tokens[:len(a.Tokens):len(a.Tokens)]
		a.ContextBefore = a.ContextBefore[:len(a.ContextBefore):len(a.ContextBefore)]
		a.ContextAfter = a.ContextAfter[:len(a.ContextAfter):len(a.ContextAfter)]
		c.Anchors[i] = a
	}
	return &c
}
