// Package cache is a size-bounded LRU cache with per-entry TTL and
// de-duplicated loading.
package cache

import (
	"container/list"
	"sync"
	"time"
)

type entry struct {
	key     string
	value   any
	expires time.Time
}

// LRU is safe for concurrent use.
type LRU struct {
	mu       sync.Mutex
	max      int
	ll       *list.List
	items    map[string]*list.Element
	inflight map[string]*call
	now      func() time.Time
}

type call struct {
	done  chan struct{}
	value any
	err   error
}

// NewLRU returns a cache holding at most max entries.
func NewLRU(max int) *LRU {
	return &LRU{max: max, ll: list.New(), items: map[string]*list.Element{}, inflight: map[string]*call{}, now: time.Now}
}

// Get returns the value of key unless it is missing or expired.
func (c *LRU) Get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if !e.expires.IsZero() && c.now().After(e.expires) {
		c.removeElement(el)
		return nil, false
	}
	c.ll.MoveToFront(el)
	return e.value, true
}

// Set stores value under key for ttl (0: no expiry), evicting the least
// recently used entry when full.
func (c *LRU) Set(key string, value any, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var exp time.Time
	if ttl > 0 {
		exp = c.now().Add(ttl)
	}
	if el, ok := c.items[key]; ok {
		el.Value = &entry{key, value, exp}
		c.ll.MoveToFront(el)
		return
	}
	c.items[key] = c.ll.PushFront(&entry{key, value, exp})
	if c.ll.Len() > c.max {
		c.evictOldest()
	}
}

func (c *LRU) evictOldest() {
	if el := c.ll.Back(); el != nil {
		c.removeElement(el)
	}
}

func (c *LRU) removeElement(el *list.Element) {
	c.ll.Remove(el)
	delete(c.items, el.Value.(*entry).key)
}

// GetOrLoad returns the cached value or calls load once for all concurrent
// callers of the same key and caches a successful result for ttl.
func (c *LRU) GetOrLoad(key string, ttl time.Duration, load func() (any, error)) (any, error) {
	if v, ok := c.Get(key); ok {
		return v, nil
	}
	c.mu.Lock()
	if cl, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		<-cl.done
		return cl.value, cl.err
	}
	cl := &call{done: make(chan struct{})}
	c.inflight[key] = cl
	c.mu.Unlock()
	cl.value, cl.err = load()
	c.mu.Lock()
	delete(c.inflight, key)
	c.mu.Unlock()
	close(cl.done)
	if cl.err == nil {
		c.Set(key, cl.value, ttl)
	}
	return cl.value, cl.err
}

// Invalidate drops key.
func (c *LRU) Invalidate(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.removeElement(el)
	}
}
