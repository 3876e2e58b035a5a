package memory

import (
	"errors"
	"sync"

	"github.com/gloss-dev/gloss/index"
)

// DocResolution is the memories of a document resolved against one text
// of it, and the text's definitions (ResolveDocumentDefs).
type DocResolution struct {
	Memories []*Memory
	Defs     []index.Definition
	Err      error
}

// docCache remembers the last resolution of each open document and runs
// one resolution per (document, version, generations) at a time.
type docCache struct {
	mu      sync.Mutex
	last    map[string]*docEntry // by workspace-relative path
	flights map[docKey]*docFlight
}

// docKey identifies a resolution: the document, the caller's version key
// of its text, and the store's memory and index generations.
type docKey struct {
	rel            string
	version        any
	memGen, idxGen uint64
}

type docEntry struct {
	key docKey
	r   *DocResolution
}

type docFlight struct {
	done chan struct{}
	r    *DocResolution
}

// ResolveDocumentCached is ResolveDocumentDefs for an open document whose
// text the caller names by version (any comparable value that changes when
// the text does, such as a pointer to an immutable snapshot). The last
// resolution of each document is reused while the version and the store
// (memory and index generations) are unchanged, whichever session changed
// the store; concurrent calls for the same key share one resolution (a
// hover sent right after an edit waits for the resolution the edit
// started). The result must not be modified.
func (w *Workspace) ResolveDocumentCached(path string, content []byte, version any) *DocResolution {
	rel, err := w.RelPath(path)
	if err != nil {
		return &DocResolution{Err: err}
	}
	memGen, err := w.Store.MemoryGeneration()
	if err != nil {
		return &DocResolution{Err: err}
	}
	idxGen, err := w.Store.Generation()
	if err != nil {
		return &DocResolution{Err: err}
	}
	key := docKey{rel, version, memGen, idxGen}
	c := &w.docCache
	c.mu.Lock()
	if e := c.last[rel]; e != nil && e.key == key {
		c.mu.Unlock()
		return e.r
	}
	if fl := c.flights[key]; fl != nil {
		c.mu.Unlock()
		<-fl.done
		return fl.r
	}
	if c.flights == nil {
		c.flights, c.last = map[docKey]*docFlight{}, map[string]*docEntry{}
	}
	fl := &docFlight{done: make(chan struct{})}
	c.flights[key] = fl
	c.mu.Unlock()

	r := &DocResolution{}
	r.Memories, r.Defs, r.Err = w.ResolveDocumentDefs(path, content)
	if r.Err == nil {
		w.noteBuffer(rel, r.Defs) // the code-symbol index follows the buffer
	}
	c.mu.Lock()
	delete(c.flights, key)
	if errors.Is(r.Err, index.ErrInterrupted) {
		// Cancelled (the document was closed): nothing to reuse.
		c.mu.Unlock()
		fl.r = r
		close(fl.done)
		return r
	}
	if len(c.last) >= maxDocs {
		for k := range c.last {
			delete(c.last, k)
			break
		}
	}
	c.last[rel] = &docEntry{key, r}
	c.mu.Unlock()
	fl.r = r
	close(fl.done)
	return r
}

// forget drops the cached resolution of rel.
func (c *docCache) forget(rel string) {
	c.mu.Lock()
	delete(c.last, rel)
	c.mu.Unlock()
}

// DropResolutions empties the cache of document resolutions, keeping the
// parses: the next ResolveDocumentCached resolves again (benchmarks of the
// uncached path use it).
func (w *Workspace) DropResolutions() {
	c := &w.docCache
	c.mu.Lock()
	c.last = map[string]*docEntry{}
	c.mu.Unlock()
}
