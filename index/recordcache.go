package index

import "github.com/gloss-dev/gloss/internal/decodecache"

// Bounds of a store's decoded file-record cache: when adding a record
// would pass either, the cache starts over.
const (
	maxCachedRecords     = 4096
	maxCachedRecordBytes = 64 << 20 // stored (JSON) bytes
)

// newRecordCache returns the store's cache of decoded file records by
// path: a read whose stored bytes are unchanged returns a shared copy of
// the decoded record (FileRecord.shared). Searches read the same records
// again and again (the graph ranker's seeds and import neighbors, code
// hits' definitions); decoding them was a third of a daemon's CPU per
// search (pprof, cobra).
func newRecordCache() *decodecache.Cache[*FileRecord] {
	return &decodecache.Cache[*FileRecord]{MaxEntries: maxCachedRecords, MaxBytes: maxCachedRecordBytes, Copy: (*FileRecord).shared}
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
