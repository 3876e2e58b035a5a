// Package decodecache keeps decoded store records next to the bytes they
// were decoded from, so that a read of unchanged bytes skips the decoding
// (bytes.Equal is far cheaper than JSON decoding). The index package uses
// it for file records, the memory package for memory records.
package decodecache

import (
	"bytes"
	"sync"
)

// Cache maps a key (a path, a memory id) to the value decoded from the
// stored bytes raw. It is safe for concurrent use; the zero value needs
// Copy set before use.
type Cache[T any] struct {
	// MaxEntries and MaxBytes (of raw bytes kept; 0: no limit) bound the
	// cache: a Put that would pass either starts it over, empty.
	MaxEntries, MaxBytes int
	// Copy returns the copy of a cached value a caller may use (Get's
	// result): one that shares no storage the caller could write into.
	Copy func(T) T

	mu    sync.Mutex
	m     map[string]entry[T]
	bytes int
}

type entry[T any] struct {
	raw []byte
	v   T
}

// Get returns Copy of the value cached for key when it was decoded from
// bytes equal to raw; ok is false otherwise.
func (c *Cache[T]) Get(key string, raw []byte) (v T, ok bool) {
	c.mu.Lock()
	e, hit := c.m[key]
	c.mu.Unlock()
	if !hit || !bytes.Equal(e.raw, raw) {
		return v, false
	}
	return c.Copy(e.v), true
}

// Put caches v as the decoding of raw under key. Both are owned by the
// cache from then on: the caller must not modify raw (clone a buffer it
// does not own) nor v (it keeps using a Copy).
func (c *Cache[T]) Put(key string, raw []byte, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.MaxEntries || c.MaxBytes > 0 && c.bytes+len(raw) > c.MaxBytes {
		c.m, c.bytes = map[string]entry[T]{}, 0
	}
	if old, ok := c.m[key]; ok {
		c.bytes -= len(old.raw)
	}
	c.m[key] = entry[T]{raw: raw, v: v}
	c.bytes += len(raw)
}

// Len returns the number of values cached.
func (c *Cache[T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
