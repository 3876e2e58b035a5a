package importgit

import (
	"sync"

	"github.com/gloss-dev/gloss/index"
)

// fileCache keeps the parse of the latest version of the paths the import
// has seen, by path and blob id (the same content at two paths has two
// parses: symbols depend on the path): walking history forward, a commit's old blob is
// usually the version an earlier commit produced, and the new version is
// then parsed incrementally from it (index.Indexer.ReparseLean re-parses
// only the top-level declarations the change touches). Cached parses have
// no syntax trees (index.File.DropTree: source, definitions and 8 bytes per
// token, ~3 bytes per source byte instead of ~400 for trees), so the cache
// can hold the whole code of a large repository and each path is parsed
// whole about once per import. It is bounded by source bytes
// (fileCacheBytes), least recently stored path out first.
type fileCache struct {
	mu      sync.Mutex
	byBlob  map[string]*index.File // cacheKey(path, blob) → parse
	last    map[string]string      // path → blob cached for it
	order   []string               // paths, oldest entry first (may hold stale entries)
	stamp   map[string]int         // path → its newest position in order (+ dropped)
	dropped int                    // entries removed from the front of order
	size    map[string]int         // path → bytes of the cached version
	bytes   int                    // sum of size
	pending map[string]pendingParse
}

// pendingParse is a blob being parsed by the commit seq; done is closed
// when the parse is cached.
type pendingParse struct {
	seq  int
	done chan struct{}
}

// fileCacheBytes bounds the source bytes of the cached parses (their
// memory is about three times that: source, token spans, definitions).
const fileCacheBytes = 96 << 20

func newFileCache() *fileCache {
	return &fileCache{byBlob: map[string]*index.File{}, last: map[string]string{}, stamp: map[string]int{}, pending: map[string]pendingParse{}, size: map[string]int{}}
}

// cacheKey is the key of a parse: the path and the blob id.
func cacheKey(path, blob string) string { return path + "\x00" + blob }

// get returns the cached parse of blob at path, waiting for the parse when an
// earlier commit (sequence number below seq) is making it (a later one
// never is waited for, so workers cannot wait on each other in a cycle);
// nil when blob is not cached.
func (c *fileCache) get(path, blob string, seq int) *index.File {
	blob = cacheKey(path, blob)
	c.mu.Lock()
	f, p := c.byBlob[blob], c.pending[blob]
	c.mu.Unlock()
	if f != nil || p.done == nil || p.seq >= seq {
		return f
	}
	<-p.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byBlob[blob]
}

// start records that the commit seq parses blob at path; call the
// returned function when done (after put, or on failure).
func (c *fileCache) start(path, blob string, seq int) func() {
	blob = cacheKey(path, blob)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[blob]; ok {
		return func() {}
	}
	p := pendingParse{seq: seq, done: make(chan struct{})}
	c.pending[blob] = p
	return func() {
		c.mu.Lock()
		delete(c.pending, blob)
		c.mu.Unlock()
		close(p.done)
	}
}

// put caches f (a File without trees), the parse of blob at path,
// replacing the path's previous version, and drops the least recently
// stored paths while the cache holds more than fileCacheBytes.
func (c *fileCache) put(path, blob string, f *index.File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.last[path]; ok {
		delete(c.byBlob, cacheKey(path, old))
	}
	c.last[path], c.byBlob[cacheKey(path, blob)] = blob, f
	c.bytes += len(f.Src) - c.size[path]
	c.size[path] = len(f.Src)
	c.order = append(c.order, path)
	c.stamp[path] = c.dropped + len(c.order) - 1
	for c.bytes > fileCacheBytes && len(c.order) > 1 {
		p := c.order[0]
		c.order = c.order[1:]
		c.dropped++
		if c.stamp[p] >= c.dropped { // a newer entry of p is further on
			continue
		}
		delete(c.byBlob, cacheKey(p, c.last[p]))
		delete(c.last, p)
		c.bytes -= c.size[p]
		delete(c.size, p)
		delete(c.stamp, p)
	}
	if len(c.order) > 4*len(c.last)+64 { // compact the stale entries
		live := c.order[:0]
		for i, p := range c.order {
			if c.stamp[p] == c.dropped+i {
				live = append(live, p)
			}
		}
		c.order = live
		c.dropped = 0
		for i, p := range c.order {
			c.stamp[p] = i
		}
	}
}
