package index

import (
	"bytes"
	"sync"
)

// Bounds of a store's decoded file-record cache: when adding a record
// would pass either, the cache starts over.
const (
	maxCachedRecords     = 4096
	maxCachedRecordBytes = 64 << 20 // stored (JSON) bytes
)

// recordCache keeps decoded file records by path with the stored bytes
// they were decoded from: a read whose stored bytes are the same
// (bytes.Equal, far cheaper than JSON decoding) returns a copy of the
// decoded record. Searches read the same records again and again (the
// graph ranker's seeds and import neighbors, code hits' definitions);
// decoding them was a third of a daemon's CPU per search (pprof, cobra).
type recordCache struct {
	mu    sync.Mutex
	m     map[string]cachedRecord
	bytes int
}

type cachedRecord struct {
	raw []byte
	rec *FileRecord
}

// get returns a copy of the record decoded from raw, or nil.
func (c *recordCache) get(path string, raw []byte) *FileRecord {
	c.mu.Lock()
	e, ok := c.m[path]
	c.mu.Unlock()
	if !ok || !bytes.Equal(e.raw, raw) {
		return nil
	}
	return e.rec.shared()
}

// put remembers rec as the decoding of raw (a copy of raw is kept; rec
// is owned by the cache from now on: the caller uses rec.shared()).
func (c *recordCache) put(path string, raw []byte, rec *FileRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedRecords || c.bytes+len(raw) > maxCachedRecordBytes {
		c.m, c.bytes = map[string]cachedRecord{}, 0
	}
	if old, ok := c.m[path]; ok {
		c.bytes -= len(old.raw)
	}
	c.m[path] = cachedRecord{raw: bytes.Clone(raw), rec: rec}
	c.bytes += len(raw)
}

// shared returns a copy of r whose slices are capped at their length, so
// that an append reallocates instead of writing into the cached arrays.
// The elements are shared: callers must not modify them in place (every
// reader of records copies definitions out).
func (r *FileRecord) shared() *FileRecord {
	c := *r
	c.Defs = c.Defs[:len(c.Defs):len(c.Defs)]
	c.Calls = c.Calls[:len(c.Calls):len(c.Calls)]
	c.Imports = c.Imports[:len(c.Imports):len(c.Imports)]
	return &c
}
