// Package memo is a bounded memo of computed values by string key, for
// work that repeats with the same input across many calls (the analyzed
// terms of a field value that many documents share, the words of a
// symbol that many memories anchor to).
package memo

import "sync"

// Map holds values by key, at most Max of them (Max ≤ 0: no bound): a
// Put into a full Map starts it over, empty, which keeps the values that
// recur (they are put again soon) without the bookkeeping of an LRU. It
// is safe for concurrent use; a Get takes a read lock. Values are shared
// by every Get: callers must not modify them. The zero value is ready.
type Map[V any] struct {
	Max int
	mu  sync.RWMutex
	m   map[string]V
}

// Get returns the value put under key, if any.
func (c *Map[V]) Get(key string) (v V, ok bool) {
	c.mu.RLock()
	v, ok = c.m[key]
	c.mu.RUnlock()
	return v, ok
}

// Put stores v under key (the caller no longer modifies v).
func (c *Map[V]) Put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.Max > 0 && len(c.m) >= c.Max {
		c.m = map[string]V{}
	}
	c.m[key] = v
}

// Len returns the number of values held.
func (c *Map[V]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
