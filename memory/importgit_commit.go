package memory

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/index"
)

// importer holds the state of one ImportGit run shared by its workers.
type importer struct {
	w     *Workspace
	plan  *importPlan
	opts  ImportGitOptions
	cache *defCache
}

// importJob is one commit for a worker; the result goes to out.
type importJob struct {
	c   *gitCommit
	out chan commitResult
}

// commitResult is a commit's memory, or the reason it has none.
type commitResult struct {
	mem        *Memory
	skip       string
	unreadable int
	err        error
}

// precheck returns the skip reason a commit's metadata alone gives
// (merge, bot, routine message, already imported), or "".
func (im *importer) precheck(c *gitCommit, merge bool) string {
	switch {
	case (merge || len(c.Parents) > 1) && !im.opts.Merges:
		return SkipMerge
	case isBot(c.Author, c.Email):
		return SkipBot
	case noiseMessage(c.Message):
		return SkipMessage
	}
	if id, err := commitMemoryID(c.Hash, c.Time); err == nil {
		if _, err := im.w.Store.Memory(id); err == nil {
			return SkipImported
		}
	}
	return ""
}

// worker turns jobs into results with its own `git cat-file` process and
// parsers.
func (im *importer) worker(ctx context.Context, jobs <-chan importJob, errc chan<- error) {
	cf, err := startCatFile(ctx, im.w.Root)
	if err != nil {
		errc <- err
		return
	}
	defer cf.Close()
	ps := im.w.takeParsers()
	defer im.w.putParsers(ps)
	for {
		select {
		case j, ok := <-jobs:
			if !ok {
				return
			}
			j.out <- im.process(cf, ps, j.c)
		case <-ctx.Done():
			return
		}
	}
}

// defSummary is what the comparison with a later version needs of a
// parsed file: each definition's content hash by symbol and the hash of
// the file's normalized tokens.
type defSummary struct {
	defs   map[string]string
	tokens string
}

// defCache keeps the summary of the last version of each path by blob id:
// walking history forward, a commit's old blob is usually the version an
// earlier commit produced, so most files are parsed once per version.
type defCache struct {
	mu     sync.Mutex
	byBlob map[string]*defSummary
	last   map[string]string // path → blob cached for it
}

func newDefCache() *defCache {
	return &defCache{byBlob: map[string]*defSummary{}, last: map[string]string{}}
}

func (c *defCache) get(blob string) *defSummary {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byBlob[blob]
}

func (c *defCache) put(path, blob string, s *defSummary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.last[path]; ok && old != blob {
		delete(c.byBlob, old)
	}
	c.last[path], c.byBlob[blob] = blob, s
}

func summarize(f *index.File) *defSummary {
	s := &defSummary{defs: make(map[string]string, len(f.Defs)), tokens: index.HashTokens(f.Tokens(0, len(f.Src)))}
	for _, d := range f.Defs {
		s.defs[d.Symbol] = d.ContentHash
	}
	return s
}

// fileChange is one code file of a commit after comparison.
type fileChange struct {
	f       *index.File // the file right after the commit (nil: deleted)
	blob    string
	old     *defSummary // the first parent's version (nil: added)
	touched []index.Definition
	removed int
	same    bool // normalized tokens unchanged
}

// process compares every code file the commit changed with its first
// parent's version and builds the commit's memory.
func (im *importer) process(cf *catFile, ps map[*index.Language]*ts.Parser, c *gitCommit) (res commitResult) {
	var files []fileChange
	defer func() {
		for _, fc := range files {
			if fc.f != nil {
				fc.f.Release()
			}
		}
	}()
	for _, ch := range c.Changes {
		fc, ok, unreadable, err := im.compare(cf, ps, ch)
		res.unreadable += unreadable
		if err != nil {
			res.err = err
			return res
		}
		if ok {
			files = append(files, fc)
		}
	}
	var st commitStats
	same := len(files) > 0
	for _, fc := range files {
		st.Files++
		st.Removed += fc.removed
		same = same && fc.same
		for _, d := range fc.touched {
			if fc.old != nil && fc.old.defs[d.Symbol] != "" {
				st.Changed++
			} else {
				st.Added++
			}
		}
	}
	n := st.Changed + st.Added
	switch {
	case n > im.opts.MaxDefinitions:
		res.skip = SkipHuge
	case n == 0 && same:
		res.skip = SkipFormatting
	case n == 0:
		res.skip = SkipNoDefinitions
	}
	if res.skip != "" {
		return res
	}
	m, err := im.commitMemory(c, files, st)
	if err != nil {
		res.skip = SkipRefused
		return res
	}
	res.mem = m
	return res
}

// compare reads and parses both versions of a changed file. ok is false
// for files outside the workspace, the path filter or the parsed
// languages, and for unreadable ones (counted in unreadable).
func (im *importer) compare(cf *catFile, ps map[*index.Language]*ts.Parser, ch gitChange) (fc fileChange, ok bool, unreadable int, err error) {
	newRel, newOK := im.relPath(ch.Path)
	oldRel, oldOK := im.relPath(ch.OldPath)
	if (ch.Blob == "" || !newOK) && (ch.OldBlob == "" || !oldOK) {
		return fc, false, 0, nil
	}
	var old *defSummary
	if ch.OldBlob != "" && oldOK {
		if old = im.cache.get(ch.OldBlob); old == nil {
			f, err := im.parseBlob(cf, ps, oldRel, ch.OldBlob)
			if err != nil {
				return fc, false, 1, ignoreUnreadable(err)
			}
			old = summarize(f)
			f.Release()
		}
	}
	if ch.Blob != "" && newOK {
		f, err := im.parseBlob(cf, ps, newRel, ch.Blob)
		if err != nil {
			return fc, false, 1, ignoreUnreadable(err)
		}
		fc.f, fc.blob = f, ch.Blob
		s := summarize(f)
		im.cache.put(newRel, ch.Blob, s)
		fc.same = old != nil && old.tokens == s.tokens
		fc.touched = touchedDefs(f, old)
		fc.old = old
		if old != nil {
			for sym := range old.defs {
				if _, ok := s.defs[sym]; !ok {
					fc.removed++
				}
			}
		}
	} else if old != nil {
		fc.removed = len(old.defs)
	}
	return fc, true, 0, nil
}

// touchedDefs returns the definitions of f that are new or whose content
// hash differs from old's, leaving out a definition when one of its
// children is touched (the change is the child's).
func touchedDefs(f *index.File, old *defSummary) []index.Definition {
	var out []index.Definition
	parents := map[string]bool{}
	for _, d := range f.Defs {
		if old != nil && old.defs[d.Symbol] == d.ContentHash {
			continue
		}
		out = append(out, d)
		if d.Parent != "" {
			parents[d.Parent] = true
		}
	}
	kept := out[:0]
	for _, d := range out {
		if !parents[d.Symbol] {
			kept = append(kept, d)
		}
	}
	return kept
}

// ignoreUnreadable turns the errors of one unreadable file (missing blob,
// too large, not text, unparsable) into nil; others (git died) stay.
func ignoreUnreadable(err error) error {
	var ue unreadableError
	if errors.Is(err, errMissing) || errors.Is(err, errTooLarge) || errors.As(err, &ue) {
		return nil
	}
	return err
}

// unreadableError is a file whose content gloss does not parse.
type unreadableError struct{ reason string }

func (e unreadableError) Error() string { return e.reason }

// parseBlob reads a blob and parses it as the workspace file rel.
func (im *importer) parseBlob(cf *catFile, ps map[*index.Language]*ts.Parser, rel, blob string) (*index.File, error) {
	src, err := cf.Blob(blob, im.w.maxFileSize())
	if err != nil {
		return nil, err
	}
	if reason := index.CheckContent(src); reason != "" {
		return nil, unreadableError{reason}
	}
	f, err := im.w.Indexer.ParseSource(ps, index.LanguageFor(rel), rel, src)
	if err != nil {
		return nil, unreadableError{err.Error()}
	}
	return f, nil
}

// relPath maps a repository path to the workspace-relative path; ok is
// false outside the workspace, under vendor/ or node_modules/, for
// languages gloss does not parse and for paths the filter excludes.
func (im *importer) relPath(p string) (string, bool) {
	if p == "" || !strings.HasPrefix(p, im.plan.prefix) {
		return "", false
	}
	rel := strings.TrimPrefix(p, im.plan.prefix)
	if index.LanguageFor(rel) == nil || index.CheckSourcePath(rel) != nil {
		return "", false
	}
	for _, seg := range strings.Split(path.Dir(rel), "/") {
		if seg == "vendor" || seg == "node_modules" {
			return "", false
		}
	}
	if im.opts.Paths != "" && !globMatch(im.opts.Paths, rel) {
		return "", false
	}
	return rel, true
}

// commitMemory builds the memory of a commit from its touched
// definitions (anchors as right after the commit; resolved later).
func (im *importer) commitMemory(c *gitCommit, files []fileChange, st commitStats) (*Memory, error) {
	id, err := commitMemoryID(c.Hash, c.Time)
	if err != nil {
		return nil, err
	}
	m, err := im.w.memoryFromRequest(RememberRequest{
		Text: commitBody(c, githubBase(im.plan.remote), st), Title: commitTitle(c.Message),
		Type: commitType(c.Message), Source: "imported_git", Author: c.Author,
	})
	if err != nil {
		return nil, err
	}
	m.ID, m.CreatedAt, m.UpdatedAt, m.VerifiedAt = id, c.Time, c.Time, c.Time
	m.GitCommit, m.GitBranch = c.Hash, im.plan.branch
	for _, fc := range files {
		for _, d := range fc.touched {
			a := im.w.symbolAnchor(fc.f, d)
			a.GitCommit, a.GitBlob = c.Hash, fc.blob
			m.Anchors = append(m.Anchors, a)
		}
	}
	return m, nil
}

// globRE caches compiled "**" globs.
var globRE sync.Map

// globMatch matches rel against a --paths pattern: path.Match, "**"
// matching any number of directories, or a directory prefix.
func globMatch(pattern, rel string) bool {
	if !strings.Contains(pattern, "**") {
		return pathMatches(pattern, rel)
	}
	re, ok := globRE.Load(pattern)
	if !ok {
		re = regexp.MustCompile(globRegexp(pattern))
		globRE.Store(pattern, re)
	}
	return re.(*regexp.Regexp).MatchString(rel)
}

// globRegexp translates a glob with "**" into an anchored regexp.
func globRegexp(pattern string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case strings.HasPrefix(pattern[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

// checkGlob reports a malformed --paths pattern.
func checkGlob(pattern string) error {
	if pattern == "" || strings.Contains(pattern, "**") {
		return nil
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("--paths %q: %v", pattern, err)
	}
	return nil
}
