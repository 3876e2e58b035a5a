package memory

import "github.com/gloss-dev/gloss/internal/decodecache"

// maxDecoded bounds the decoded-record cache of a workspace.
const maxDecoded = 50_000

// newDecodedCache returns a workspace's cache of decoded memory records
// by id: a read whose stored bytes are unchanged returns a private copy
// of the decoded memory (Memory.private). Every open document's
// resolution reads all memories anchored in it on every keystroke;
// decoding them dominated that cost.
func newDecodedCache() *decodecache.Cache[*Memory] {
	return &decodecache.Cache[*Memory]{MaxEntries: maxDecoded, Copy: (*Memory).private}
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
