package importgit

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
	"github.com/gloss-dev/gloss/memory"
)

// importer holds the state of one Run shared by its workers.
type importer struct {
	w     *memory.Workspace
	plan  *importPlan
	opts  Options
	cache *fileCache
	// chunks keeps the parses of Go declarations made at first sights
	// (index.ParseRegions), shared by the workers.
	chunks *index.ChunkMemo
	live   *liveCommits
	// wholeParses makes compare parse both versions of every file whole
	// with tree-sitter, without the cache: the reference the faster ways
	// must agree with (tests).
	wholeParses bool
	// noFastGo turns off index.Indexer.ParseGoFast, so that Go files take
	// the tree-sitter ways (tests of those ways).
	noFastGo bool
}

// importJob is one commit for a worker; the result goes to out.
type importJob struct {
	seq int // position in the walk
	c   *gitCommit
	out chan commitResult
}

// commitResult is a commit's memory, or the reason it has none.
type commitResult struct {
	mem          *memory.Memory
	skip         string
	skippedFiles map[string]int // file versions left out, by FileSkip* reason
	err          error
}

// precheck returns the skip reason a commit's metadata alone gives
// (merge, bot, routine message, imported before: priorImport), or "".
func (im *importer) precheck(c *gitCommit, merge bool) string {
	switch {
	case (merge || len(c.Parents) > 1) && !im.opts.Merges:
		return SkipMerge
	case isBot(c.Author, c.Email):
		return SkipBot
	case noiseMessage(c.Message) && !(im.opts.Merges && len(c.Parents) > 1):
		return SkipMessage
	}
	return im.priorImport(c)
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
	ps := im.w.TakeParsers()
	defer im.w.PutParsers(ps)
	for {
		select {
		case j, ok := <-jobs:
			if !ok {
				return
			}
			j.out <- im.process(cf, ps, j)
		case <-ctx.Done():
			return
		}
	}
}

// fileChange is one code file of a commit after comparison.
type fileChange struct {
	f, old  *index.File // right after the commit and before (nil: deleted, added); no trees
	blob    string
	touched []index.Definition
	removed int
	same    bool // normalized tokens unchanged (computed when nothing was touched or removed)
}

// sameTokens reports whether the file's normalized tokens (comments and
// whitespace dropped) are unchanged by the commit.
func (fc fileChange) sameTokens() bool {
	if fc.f == nil || fc.old == nil {
		return false
	}
	return index.SameTokens(fc.f, fc.old)
}

// process compares every code file the commit changed with its first
// parent's version and builds the commit's memory.
func (im *importer) process(cf *catFile, ps map[*index.Language]*ts.Parser, j importJob) (res commitResult) {
	c := j.c
	cf.memo = map[string][]byte{}
	defer func() { cf.memo = nil }()
	if !im.wholeParses && im.tooManyFuncs(cf, c) {
		res.skip = SkipHuge
		return res
	}
	var files []fileChange
	for _, ch := range c.Changes {
		fc, ok, skipped, err := im.compare(cf, ps, j.seq, ch)
		if skipped != "" {
			if res.skippedFiles == nil {
				res.skippedFiles = map[string]int{}
			}
			res.skippedFiles[skipped]++
		}
		if err != nil {
			res.err = err
			return res
		}
		if ok {
			files = append(files, fc)
		}
	}
	var st commitStats
	for _, fc := range files {
		st.Files++
		st.Removed += fc.removed
		for _, d := range fc.touched {
			if fc.old != nil && hasSymbol(fc.old, d.Symbol) {
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
	case n == 0 && len(files) > 0 && st.Removed == 0 && allSameTokens(files):
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

// tooManyFuncs reports, without parsing, that the commit changes more
// definitions than the limit: its Go files' changed function and method
// declarations (index.GoChangedFuncs, a lower bound of what the parses
// find) are more. Files the comparison would leave out (unreadable,
// generated, filtered) are left out here too. Large commits cost the most
// parsing (40 % of the import's time on prometheus' newest 1,000
// commits was spent on commits then skipped as too broad).
func (im *importer) tooManyFuncs(cf *catFile, c *gitCommit) bool {
	n := 0
	for _, ch := range c.Changes {
		rel, ok := im.relPath(ch.Path)
		if !ok || ch.Blob == "" || index.LanguageFor(rel).Name != "go" {
			continue
		}
		var oldSrc []byte
		if _, oldOK := im.relPath(ch.OldPath); oldOK && ch.OldBlob != "" {
			src, err := im.readBlob(cf, ch.OldBlob)
			if err != nil {
				continue // the comparison leaves the file out
			}
			oldSrc = src
		}
		src, err := im.readBlob(cf, ch.Blob)
		if err != nil {
			continue
		}
		if n += index.GoChangedFuncs(oldSrc, src); n > im.opts.MaxDefinitions {
			return true
		}
	}
	return false
}

func allSameTokens(files []fileChange) bool {
	for _, fc := range files {
		if !fc.same {
			return false
		}
	}
	return true
}

func hasSymbol(f *index.File, sym string) bool {
	for _, d := range f.Defs {
		if d.Symbol == sym {
			return true
		}
	}
	return false
}

// compare reads and parses both versions of a changed file: the old one
// from the cache when an earlier commit made it, the new one incrementally
// from the old (or, at a path's first sight, whole, and the old one from
// it). ok is false for files outside the workspace, the path filter or the
// parsed languages, and for files skipped with a reason (skipped: a
// FileSkip* constant; missing from the clone, too large, not text,
// generated).
func (im *importer) compare(cf *catFile, ps map[*index.Language]*ts.Parser, seq int, ch gitChange) (fc fileChange, ok bool, skipped string, err error) {
	newRel, newOK := im.relPath(ch.Path)
	oldRel, oldOK := im.relPath(ch.OldPath)
	newOK, oldOK = newOK && ch.Blob != "", oldOK && ch.OldBlob != ""
	if !newOK && !oldOK {
		return fc, false, "", nil
	}
	if newOK && !im.wholeParses {
		defer im.cache.start(newRel, ch.Blob, seq)()
	}
	if oldOK && !im.wholeParses {
		fc.old = im.cache.get(oldRel, ch.OldBlob, seq)
	}
	if newOK && oldOK && fc.old == nil && oldRel == newRel && !im.wholeParses {
		if ok, skipped, err := im.comparePartial(cf, ps, newRel, ch, &fc); ok || skipped != "" || err != nil {
			return fc, ok, skipped, err
		}
	}
	if newOK {
		base := fc.old
		if oldRel != newRel || im.wholeParses {
			base = nil // symbols depend on the path: parse a renamed file whole
		}
		if fc.f, err = im.parseBlob(cf, ps, newRel, ch.Blob, base); err != nil {
			return fc, false, fileSkipReason(err), ignoreUnreadable(err)
		}
		fc.blob = ch.Blob
		if !im.wholeParses {
			im.cache.put(newRel, ch.Blob, fc.f)
		}
	}
	if oldOK && fc.old == nil {
		base := fc.f
		if oldRel != newRel || im.wholeParses {
			base = nil
		}
		if fc.old, err = im.parseBlob(cf, ps, oldRel, ch.OldBlob, base); err != nil {
			return fc, false, fileSkipReason(err), ignoreUnreadable(err)
		}
	}
	fc.diff()
	return fc, true, "", nil
}

// diff fills fc's touched definitions, removed count and same flag from
// its two whole parses (either may be nil: added or deleted file).
func (fc *fileChange) diff() {
	if fc.f != nil {
		fc.touched = touchedDefs(fc.f, fc.old)
	}
	if fc.old != nil {
		for _, d := range fc.old.Defs {
			if fc.f == nil || !hasSymbol(fc.f, d.Symbol) {
				fc.removed++
			}
		}
	}
	if len(fc.touched) == 0 && fc.removed == 0 {
		fc.same = fc.sameTokens()
	}
}

// touchedDefs returns the definitions of f that are new or whose content
// hash differs from old's, leaving out a definition when one of its
// children is touched (the change is the child's). A symbol can name
// several definitions of a file (Go's init functions, Python property
// setters, TypeScript overloads): a definition is unchanged when old has
// one of the same symbol and content hash, wherever it is, so the answer
// does not depend on which of old's definitions were parsed (a partial
// parse, comparePartial, holds only those around the edits).
func touchedDefs(f, old *index.File) []index.Definition {
	type symHash struct{ sym, hash string }
	before := map[symHash]bool{}
	if old != nil {
		for _, d := range old.Defs {
			before[symHash{d.Symbol, d.ContentHash}] = true
		}
	}
	var out []index.Definition
	parents := map[string]bool{}
	for _, d := range f.Defs {
		if before[symHash{d.Symbol, d.ContentHash}] {
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

// Reasons a file version is left out of a commit's comparison, counted in
// Result.SkippedFiles.
const (
	// FileSkipMissing: the blob is not in the repository (a partial or
	// shallow clone).
	FileSkipMissing = "missing"
	// FileSkipTooLarge: the file is over the indexed file size limit.
	FileSkipTooLarge = "too_large"
	// FileSkipNotText: binary, not UTF-8, or not parsable.
	FileSkipNotText = "not_text"
	// FileSkipGenerated: the file says it is generated ("Code generated
	// ... DO NOT EDIT.", the Go convention, https://go.dev/s/generatedcode,
	// also used by other generators): its changes are a generator's run,
	// not explained by the commit's message.
	FileSkipGenerated = "generated"
)

// fileSkipReason returns the FileSkip* reason of a parseBlob error, "" for
// others.
func fileSkipReason(err error) string {
	var ue unreadableError
	switch {
	case errors.Is(err, errMissing):
		return FileSkipMissing
	case errors.Is(err, errTooLarge):
		return FileSkipTooLarge
	case errors.Is(err, errGenerated):
		return FileSkipGenerated
	case errors.As(err, &ue):
		return FileSkipNotText
	}
	return ""
}

// ignoreUnreadable turns the errors of one unreadable file (missing blob,
// too large, not text, unparsable, generated) into nil; others (git died)
// stay.
func ignoreUnreadable(err error) error {
	if fileSkipReason(err) != "" {
		return nil
	}
	return err
}

// unreadableError is a file whose content gloss does not parse.
type unreadableError struct{ reason string }

func (e unreadableError) Error() string { return e.reason }

// errGenerated reports a generated file (isGenerated).
var errGenerated = errors.New("generated file")

// generatedHeader is the marker of generated files
// (https://go.dev/s/generatedcode): a comment line "Code generated ... DO
// NOT EDIT." before the first non-comment, non-blank text; other
// languages' generators write it with their comment marker ("#", "/*",
// " *").
var generatedHeader = regexp.MustCompile(`^\s*(//|#|/\*|\*)\s*Code generated .* DO NOT EDIT\.?`)

// isGenerated reports whether src carries the generated-code marker in
// its leading comments (within its first 2 KiB). A generator whose
// templates hold the marker further down is not generated.
func isGenerated(src []byte) bool {
	head := string(src[:min(len(src), 2048)])
	for _, line := range strings.Split(head, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case generatedHeader.MatchString(line):
			return true
		case t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*"):
			continue
		}
		return false
	}
	return false
}

// parseBlob reads a blob and parses it as the workspace file rel, into a
// File without syntax trees: a Go file without tree-sitter when it can
// (fastGo), else incrementally from base (another version of rel, without
// trees) when given and re-parsable, else whole.
func (im *importer) parseBlob(cf *catFile, ps map[*index.Language]*ts.Parser, rel, blob string, base *index.File) (*index.File, error) {
	src, err := im.readBlob(cf, blob)
	if err != nil {
		return nil, err
	}
	if f, ok := im.fastGo(rel, src); ok {
		return f, nil
	}
	var f *index.File
	if base != nil && base.Lang != nil && base.Path == rel && base.Reparsable() {
		f, err = reparseSteps(im.w.Indexer, ps, base, src)
	} else if f, err = im.w.Indexer.ParseSource(ps, index.LanguageFor(rel), rel, src); err == nil {
		f.DropTree()
	}
	if err != nil {
		return nil, unreadableError{err.Error()}
	}
	return f, nil
}

// fastGo parses a Go file with index.Indexer.ParseGoFast (go/parser and
// go/scanner, about 18 times cheaper than tree-sitter, with the same
// definitions and tokens); ok is false for other languages, for a file
// the fast path does not vouch for (a syntax error), and in the
// reference and tree-sitter modes of the tests.
func (im *importer) fastGo(rel string, src []byte) (*index.File, bool) {
	if im.wholeParses || im.noFastGo {
		return nil, false
	}
	return im.w.Indexer.ParseGoFast(index.LanguageFor(rel), rel, src)
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
func (im *importer) commitMemory(c *gitCommit, files []fileChange, st commitStats) (*memory.Memory, error) {
	id, err := commitMemoryID(c.Hash, c.Time)
	if err != nil {
		return nil, err
	}
	m, err := im.w.NewMemory(memory.RememberRequest{
		Text: commitBody(c, githubBase(im.plan.remote), st), Title: commitTitle(c.Message),
		Type: commitType(c.Message), Source: memory.SourceImportedGit, Author: c.Author,
	})
	if err != nil {
		return nil, err
	}
	m.ID, m.CreatedAt, m.UpdatedAt, m.VerifiedAt = id, c.Time, c.Time, c.Time
	m.GitCommit, m.GitBranch = c.Hash, im.plan.branch
	for _, fc := range files {
		for _, d := range fc.touched {
			a := im.w.SymbolAnchor(fc.f, d)
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
		return memory.PathMatches(pattern, rel)
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
