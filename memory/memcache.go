package memory

import (
	"bytes"
	"sync"
)

// maxDecoded bounds the decoded-record cache of a workspace.
const maxDecoded = 50_000

// decodedCache keeps the decoded form of memory records by id with the
// record bytes it was decoded from: a get whose stored bytes are the same
// (bytes.Equal, far cheaper than JSON decoding) returns a copy of the
// decoded memory. Every open document's resolution reads all memories
// anchored in it on every keystroke; decoding them dominated that cost.
type decodedCache struct {
	mu sync.Mutex
	m  map[string]decoded
}

type decoded struct {
	raw []byte
	m   *Memory
}

// get returns a private copy of the memory decoded from raw, or nil.
func (c *decodedCache) get(id string, raw []byte) *Memory {
	c.mu.Lock()
	d, ok := c.m[id]
	c.mu.Unlock()
	if !ok || !bytes.Equal(d.raw, raw) {
		return nil
	}
	return d.m.private()
}

// put remembers m as the decoding of raw (both owned by the cache from
// now on: callers keep using a private copy).
func (c *decodedCache) put(id string, raw []byte, m *Memory) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxDecoded {
		c.m = map[string]decoded{}
	}
	c.m[id] = decoded{raw: raw, m: m.private()}
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
