package memory

import (
	"sync"

	"github.com/gloss-dev/gloss/index"
)

// fileCache keeps the parse of the latest version of recently changed
// paths by blob id: walking history forward, a commit's old blob is
// usually the version an earlier commit produced, and the new version is
// then parsed incrementally from it (index.Reparse re-parses only the
// top-level declarations the change touches).
//
// A reparse shares the syntax trees of the parses it was made from, so the
// parses of a path since its last full parse form a chain that is released
// as a whole: when a full parse starts a new chain, or the path leaves the
// cache. A chain dropped from the cache may still be read by the commits
// that took a parse from it (get) or put one into it (put); each such
// commit holds a reference until it is done (leave), and the chain is
// released when the last reference goes (reference counting), so parse
// arenas (hundreds of bytes per source byte) live no longer than needed.
type fileCache struct {
	mu      sync.Mutex
	byBlob  map[string]cachedParse
	last    map[string]string // path → blob cached for it
	chains  map[string]*chain // path → its current chain
	order   []string          // paths, oldest entry first
	size    map[string]int    // path → bytes of the cached version
	bytes   int               // sum of size
	pending map[string]pendingParse
}

// cachedParse is a cached parse and the chain that owns its trees.
type cachedParse struct {
	f  *index.File
	ch *chain
}

// chain is the parses of one path that share syntax trees; readers counts
// the commits using it, retired that it left the cache.
type chain struct {
	files   []*index.File
	readers int
	retired bool
}

// pendingParse is a blob being parsed by the commit seq; done is closed
// when the parse is cached.
type pendingParse struct {
	seq  int
	done chan struct{}
}

// fileCacheSize bounds the cached paths (each holds syntax trees),
// fileCacheBytes their source bytes (parse arenas take ~400 bytes per
// source byte, so 2 MiB of Go is ~850 MB of trees), and
// maxSegments the trees one cached parse may be made of: a path re-parsed
// more often is parsed whole, which starts a new chain.
const (
	fileCacheSize  = 16
	fileCacheBytes = 2 << 20
	maxSegments    = 6
)

func newFileCache() *fileCache {
	return &fileCache{byBlob: map[string]cachedParse{}, last: map[string]string{}, chains: map[string]*chain{}, pending: map[string]pendingParse{}, size: map[string]int{}}
}

// get returns the cached parse of blob and its chain, on which the caller
// holds a reference until leave, waiting for the parse when an earlier
// commit (sequence number below seq) is making it (a later one never is
// waited for, so workers cannot wait on each other in a cycle). Both are
// nil when blob is not cached.
func (c *fileCache) get(blob string, seq int) (*index.File, *chain) {
	c.mu.Lock()
	cp, p := c.byBlob[blob], c.pending[blob]
	if cp.f != nil {
		cp.ch.readers++
		c.mu.Unlock()
		return cp.f, cp.ch
	}
	c.mu.Unlock()
	if p.done == nil || p.seq >= seq {
		return nil, nil
	}
	<-p.done
	return c.get(blob, seq)
}

// leave drops a reference taken by get or put; the chain is released when
// it has left the cache and this was the last reference.
func (c *fileCache) leave(ch *chain) {
	if ch == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ch.readers--
	if ch.retired && ch.readers == 0 {
		release(ch.files)
		ch.files = nil
	}
}

// start records that the commit seq parses blob; call the returned
// function when done (after put, or on failure).
func (c *fileCache) start(blob string, seq int) func() {
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

// put caches f, the parse of blob at path; made are the Files the parse
// created (see reparseSteps) and base the chain of the parse it was made
// from (nil for a full parse). It returns the chain f joined, on which the
// caller holds a reference until leave; ok is false when f was not cached
// because it shares trees with a chain that already left the cache: the
// caller then owns made.
func (c *fileCache) put(path, blob string, f *index.File, made []*index.File, base *chain) (ch *chain, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.chains[path]
	full := f.Segments() <= 1 && (base == nil || !contains(base.files, f))
	if !full && (base == nil || base != cur || base.retired) {
		return nil, false
	}
	if old, ok := c.last[path]; ok {
		delete(c.byBlob, old)
	} else {
		c.order = append(c.order, path)
	}
	if full {
		c.retire(path)
		cur = &chain{}
		c.chains[path] = cur
	}
	cur.files = append(cur.files, made...)
	cur.readers++
	c.last[path], c.byBlob[blob] = blob, cachedParse{f, cur}
	c.bytes += len(f.Src) - c.size[path]
	c.size[path] = len(f.Src)
	for len(c.order) > fileCacheSize || c.bytes > fileCacheBytes && len(c.order) > 1 {
		p := c.order[0]
		c.order = c.order[1:]
		delete(c.byBlob, c.last[p])
		delete(c.last, p)
		c.bytes -= c.size[p]
		delete(c.size, p)
		c.retire(p)
	}
	return cur, true
}

// retire drops the chain of path from the cache, releasing it unless a
// commit still reads it. c.mu is held.
func (c *fileCache) retire(path string) {
	ch := c.chains[path]
	delete(c.chains, path)
	if ch == nil {
		return
	}
	ch.retired = true
	if ch.readers == 0 {
		release(ch.files)
		ch.files = nil
	}
}

// close releases every parse; no commit may be in flight.
func (c *fileCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, ch := range c.chains {
		ch.readers = 0
		c.retire(p)
	}
}

// release releases files, newest first (a reparse before its bases).
func release(files []*index.File) {
	for i := len(files) - 1; i >= 0; i-- {
		files[i].Release()
	}
}

func contains(files []*index.File, f *index.File) bool {
	for _, g := range files {
		if g == f {
			return true
		}
	}
	return false
}
