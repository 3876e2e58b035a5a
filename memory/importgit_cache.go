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
// cache. A retired chain may still be read by commits in flight, so it is
// released only once the collector has finished every commit that could
// have read it (reclaim; epoch-based reclamation, as in K. Fraser,
// "Practical lock-freedom", 2004, §5.2.3).
type fileCache struct {
	mu     sync.Mutex
	byBlob map[string]*index.File
	last   map[string]string        // path → blob cached for it
	chains map[string][]*index.File // path → parses sharing trees
	order  []string                 // paths, oldest entry first
	// pending are the blobs being parsed, with the sequence number of
	// their commit and a channel closed when the parse is cached.
	pending map[string]pendingParse
	retired []retiredChain
}

type pendingParse struct {
	seq  int
	done chan struct{}
}

// retiredChain is a chain dropped by the commit with sequence number seq.
type retiredChain struct {
	seq   int
	files []*index.File
}

// fileCacheSize bounds the cached paths (each holds syntax trees), and
// maxSegments the trees one cached parse may be made of: a path re-parsed
// more often is parsed whole, which starts a new chain.
const (
	fileCacheSize = 16
	maxSegments   = 6
)

func newFileCache() *fileCache {
	return &fileCache{byBlob: map[string]*index.File{}, last: map[string]string{}, chains: map[string][]*index.File{}, pending: map[string]pendingParse{}}
}

// get returns the cached parse of blob, waiting for it when an earlier
// commit (sequence number below seq) is parsing it (a later one never
// is waited for, so workers cannot wait on each other in a cycle).
func (c *fileCache) get(blob string, seq int) *index.File {
	c.mu.Lock()
	f, p := c.byBlob[blob], c.pending[blob]
	c.mu.Unlock()
	if f != nil || p.done == nil || p.seq >= seq {
		return f
	}
	<-p.done
	return c.get(blob, seq)
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

// put caches f, the parse of blob at path by the commit seq; made are the
// Files the parse created (see reparseSteps).
func (c *fileCache) put(path, blob string, f *index.File, made []*index.File, seq int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.last[path]; ok {
		delete(c.byBlob, old)
	} else {
		c.order = append(c.order, path)
	}
	if f.Segments() <= 1 && !contains(c.chains[path], f) { // shares no tree: a new chain
		c.retire(path, seq)
	}
	c.chains[path] = append(c.chains[path], made...)
	c.last[path], c.byBlob[blob] = blob, f
	for len(c.order) > fileCacheSize {
		p := c.order[0]
		c.order = c.order[1:]
		delete(c.byBlob, c.last[p])
		delete(c.last, p)
		c.retire(p, seq)
	}
}

// retire moves the chain of path to the retired list. c.mu is held.
func (c *fileCache) retire(path string, seq int) {
	if ch := c.chains[path]; len(ch) > 0 {
		c.retired = append(c.retired, retiredChain{seq: seq, files: ch})
	}
	delete(c.chains, path)
}

// reclaim releases the chains retired by commits up to seq.
func (c *fileCache) reclaim(seq int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := 0
	for k < len(c.retired) && c.retired[k].seq <= seq {
		release(c.retired[k].files)
		k++
	}
	c.retired = c.retired[k:]
}

// close releases every parse; no commit may be in flight.
func (c *fileCache) close() {
	c.reclaim(int(^uint(0) >> 1))
	for p := range c.chains {
		c.retire(p, 0)
	}
	c.reclaim(int(^uint(0) >> 1))
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
