package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/decodecache"
)

// Options configure Open.
type Options struct {
	// Home is the data home; "" means DataHome().
	Home string
	// MaxFileSize for indexing in bytes; 0 means index.DefaultMaxFileSize.
	MaxFileSize int64
	// Author recorded on new memories; "" means the git user.name of the
	// workspace, else $USER.
	Author string
	// Now returns the current time; nil means time.Now (tests pin it).
	Now func() time.Time
	// Warn receives problems that do not fail an operation, such as a
	// project memory's Markdown file that could not be written (the store
	// already holds the memory). nil discards them.
	Warn func(error)
	// Force indexes a root that is not a project (see
	// index.IsProjectRoot); without it Index refuses such a root.
	Force bool
	// StoreFS is the file system of the Pebble store; nil means the real
	// one (tests inject write failures with Pebble's vfs/errorfs).
	StoreFS vfs.FS
	// Embedder selects the embedder of the vector index (embed.ParseSpec:
	// builtin, none, model2vec:DIR, ollama:MODEL[@URL],
	// openai:MODEL[@URL]); "" means $GLOSS_EMBEDDER, else builtin.
	Embedder string
	// ReadOnly opens the store read-only, for a command that only reads
	// (the CLI's search and context): opening then skips the flush of the
	// last process's write-ahead log and the compactions that follow
	// (index.OpenStoreReadOnly), and accesses go to an access file that
	// the next writable opening adds to the store. A write reopens the
	// store for writing first, so nothing is refused. Ignored with
	// StoreFS; a store that cannot be opened read-only is opened for
	// writing.
	ReadOnly bool
	// StoreCacheBytes is the size of the Pebble block cache of a store
	// opened for writing, in bytes (index.OpenStoreCache); 0 means
	// index.StoreCacheBytes (64 MiB). `gloss remember --batch` sets a
	// small one: it reads each block about once, and the default made
	// about 30 MiB of its peak resident set.
	StoreCacheBytes int64
	// StoreBulk opens a store for writing with Pebble's level-0
	// compactions spaced for a bulk write (index.OpenStoreBulk), as
	// `gloss remember --batch` does.
	StoreBulk bool
	// KeepBatchFiles keeps the files that one RememberBatch call built
	// from their stored index records (definitions, tokens, source) for
	// the next call, as `gloss remember --batch` does (one short-lived
	// process, one call per 10,000 lines): a kept file is used again only
	// while the index generation is the one it was built at and the file
	// on disk has the same bytes. The files stay on the heap between
	// calls (at most batchFilesBudget of source), so a long-lived process
	// leaves it off.
	KeepBatchFiles bool
	// KeepBatchFilesFor bounds how long, with KeepBatchFiles, the kept
	// files wait for the next RememberBatch call before they are dropped
	// (0: until that call). The daemon keeps them 30 s: a batch sent
	// through it, 10,000 lines per call, then reads and hashes each file
	// it anchors in once per batch rather than once per call, and the
	// heap lets go of them soon after the batch.
	KeepBatchFilesFor time.Duration
}

// Workspace is one project root with its isolated store: the engine API
// that the CLI, the language server and tests call. Methods are safe for
// concurrent use; writes are serialized.
type Workspace struct {
	// Root is the absolute, symlink-free workspace root.
	Root string
	// ID is the project id (see ProjectID).
	ID string
	// Dir is the project's data directory: <home>/projects/<ID>.
	Dir string

	Store   *index.Store
	Indexer *index.Indexer

	author     string
	authorOnce sync.Once // authorName
	now        func() time.Time
	warn       func(error)
	force      bool

	// roMu guards roErr, the write failure that made the workspace
	// read-only (nil when writable); see writefault.go.
	roMu  sync.Mutex
	roErr error

	writeMu sync.Mutex // serializes memory writes and resolution

	parserMu sync.Mutex
	parsers  []map[*index.Language]*ts.Parser

	searchMu sync.Mutex
	search   index.Derived // the memory text index (index.BM25Text), opened on first use

	access accessLog // accesses not yet written (access.go)

	vecs vectorState // the vector index and its embedder (vectors.go)
	code codeIndex   // the code-symbol full-text index (codesearch.go)

	// docMu serializes resolutions against unsaved documents and guards
	// docs, the last parse of each document, which Reparse builds on (the
	// parses share syntax trees, which are not safe for concurrent walks).
	docMu sync.Mutex
	docs  map[string]*index.File
	// docParses counts the parses overlayFile made (guarded by docMu;
	// tests tell a document built from its record from a parsed one).
	docParses int

	docCache docCache                    // resolutions of open documents (ResolveDocumentCached)
	decoded  *decodecache.Cache[*Memory] // decoded memory records (getRecord; newDecodedCache)

	// docStops are the cancellation flags of the document parses running
	// now, by workspace-relative path (CancelDocument); guarded by stopMu,
	// not docMu, which the parse holds.
	stopMu   sync.Mutex
	docStops map[string]*uint32

	// fileStamps caches parsed memory files by id (team.go); guarded by
	// writeMu.
	fileStamps map[string]fileStamp

	// batchSites, during a large RememberBatch, holds every definition
	// site by body hash (index.Store.BodyHashIndex); guarded by writeMu.
	batchSites map[string][]index.Site
	// batchGen is 1 + the index generation read at the start of the
	// RememberBatch chunk being anchored, 0 outside one (batchGeneration).
	batchGen atomic.Uint64
	// keepBatchFiles is Options.KeepBatchFiles; keptFiles the files
	// built from stored records by the last RememberBatch call, kept for
	// the next one (batchState.carried); guarded by writeMu.
	keepBatchFiles bool
	keptFiles      *keptBatchFiles
	// keepFor is Options.KeepBatchFilesFor; keptTimer drops keptFiles
	// once it has waited that long (guarded by writeMu).
	keepFor   time.Duration
	keptTimer *time.Timer

	// pages is the place order of the memories ListPage's scan read last
	// (pageIndex), nil before; summaryScans counts ReadSummaries calls
	// (tests tell a page read from it from a scan).
	pages        atomic.Pointer[pageIndex]
	summaryScans atomic.Int64
	// parseSpans makes span anchors parse their file even when its stored
	// token stream could anchor them (tests compare both ways).
	parseSpans bool

	rels relCache // the relation index by target (relations.go)

	places placeTable // every memory's anchor places, once warmed (places.go)
}

// DataHome returns $GLOSS_HOME, else $XDG_DATA_HOME/gloss, else
// ~/.local/share/gloss.
func DataHome() (string, error) {
	if h := os.Getenv("GLOSS_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "gloss"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no data home: set GLOSS_HOME (%w)", err)
	}
	return filepath.Join(home, ".local", "share", "gloss"), nil
}

// FindRoot returns the workspace root for dir: the git top-level directory
// when dir is inside a git work tree, else dir itself; absolute with
// symlinks resolved. It fails when dir does not exist.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	abs, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	if st, err := os.Stat(abs); err != nil {
		return "", err
	} else if !st.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", dir)
	}
	if top, ok := gitTops.Load(abs); ok {
		return top.(string), nil
	}
	if top, ok := gitTopFast(abs); ok {
		gitTops.Store(abs, top)
		return top, nil
	}
	if out, err := git(abs, "rev-parse", "--show-toplevel"); err == nil && out != "" {
		if top, err := filepath.EvalSymlinks(out); err == nil {
			gitTops.Store(abs, top)
			gitTops.Store(top, top)
			return top, nil
		}
	}
	return abs, nil
}

// gitTops memoizes FindRoot's git answers (directory → top level) for the
// life of the process: a CLI call resolves its root several times (daemon
// socket, project id, store), and each `git rev-parse` is a process
// (about 5 ms idle, 60–80 ms on the loaded benchmark machine). Only
// directories inside a work tree are kept, so a folder that becomes a
// repository later is seen as one.
var gitTops sync.Map

// ProjectID returns the project id of the workspace at root: the first 16
// hex digits of the SHA-256 of its absolute, symlink-free root (the git
// top-level directory, see FindRoot). Every clone and git worktree of a
// repository is its own project, with its own store and daemon: each
// checkout's anchors resolve against its own files. What clones share
// travels in the committed memory files (SyncMemoryFiles).
func ProjectID(root string) string {
	if r, err := FindRoot(root); err == nil {
		root = r
	}
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])[:16]
}

// legacyProjectID is the project id of gloss versions that keyed stores
// by the normalized origin remote URL (NormalizeRemote), else by the git
// top-level path, else by the root: clones shared one store.
func legacyProjectID(root string) string {
	key := root
	if u, err := git(root, "config", "--get", "remote.origin.url"); err == nil && u != "" {
		key = NormalizeRemote(u)
	} else if top, err := git(root, "rev-parse", "--show-toplevel"); err == nil && top != "" {
		key = top
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])[:16]
}

// migrateStore moves the store of an older gloss (legacyProjectID) to the
// project id of root when root has no store yet and the old store was
// last opened from root (its "root" file). A store another checkout
// opened last stays where it is for that checkout to migrate; this one
// then starts empty and loads the project memories from their files, so
// no memory is lost.
func migrateStore(home, root, id string) error {
	pdir := filepath.Join(home, "projects", id)
	if _, err := os.Lstat(pdir); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	old := legacyProjectID(root)
	if old == id {
		return nil
	}
	odir := filepath.Join(home, "projects", old)
	owner, err := os.ReadFile(filepath.Join(odir, "root"))
	if err != nil || strings.TrimSpace(string(owner)) != root {
		return nil
	}
	if err := os.Rename(odir, pdir); err != nil {
		return fmt.Errorf("move the store of %s from %s to %s: %w", root, odir, pdir, err)
	}
	return nil
}

var scpLike = regexp.MustCompile(`^(?:[^@/]+@)?([^:/]+):(.+)$`)

// NormalizeRemote turns the spellings of one git remote into one string:
// "git@github.com:a/b.git", "https://user@GitHub.com/a/b" and
// "ssh://git@github.com/a/b.git" all give "github.com/a/b".
func NormalizeRemote(u string) string {
	u = strings.TrimSpace(u)
	var host, p string
	if pu, err := url.Parse(u); err == nil && pu.Scheme != "" && pu.Host != "" {
		host, p = pu.Hostname(), pu.Path
	} else if m := scpLike.FindStringSubmatch(u); m != nil {
		host, p = m[1], m[2]
	} else {
		return strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
	}
	p = strings.Trim(p, "/")
	p = strings.TrimSuffix(p, ".git")
	return strings.ToLower(host) + "/" + p
}

// Open opens the workspace containing dir (see FindRoot) and its store,
// creating the store on first use. It fails when the store is locked by
// another process or unreadable.
func Open(dir string, opts Options) (*Workspace, error) {
	root, err := FindRoot(dir)
	if err != nil {
		return nil, err
	}
	home := opts.Home
	if home == "" {
		if home, err = DataHome(); err != nil {
			return nil, err
		}
	}
	id := ProjectID(root)
	if err := migrateStore(home, root, id); err != nil {
		return nil, err
	}
	pdir := filepath.Join(home, "projects", id)
	if err := os.MkdirAll(pdir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	_ = os.WriteFile(filepath.Join(pdir, "root"), []byte(root+"\n"), 0o600)
	st, ro, err := openStore(filepath.Join(pdir, "pebble"), opts)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Root: root, ID: id, Dir: pdir, Store: st, author: opts.Author, now: opts.Now, warn: opts.Warn, force: opts.Force, decoded: newDecodedCache(), keepBatchFiles: opts.KeepBatchFiles, keepFor: opts.KeepBatchFilesFor}
	w.vecs.spec = opts.Embedder
	if w.warn == nil {
		w.warn = func(error) {}
	}
	w.Indexer = &index.Indexer{Root: root, Store: st, Project: index.NewProject(root), MaxFileSize: opts.MaxFileSize}
	if w.now == nil {
		w.now = time.Now
	}
	if ro {
		w.roErr = errOpenedReadOnly
	} else if err := w.mergeAccessFile(); err != nil {
		w.warn(err) // statistics only
	}
	return w, nil
}

// authorName returns the author of new memories: Options.Author, else
// git's user.name in the workspace, else $USER. It runs git once, at the
// first write, so that a read-only command starts no git process for it.
func (w *Workspace) authorName() string {
	w.authorOnce.Do(func() {
		if w.author != "" {
			return
		}
		if a, err := git(w.Root, "config", "user.name"); err == nil && a != "" {
			w.author = a
		} else {
			w.author = os.Getenv("USER")
		}
	})
	return w.author
}

// Close releases the store and search index (after stopping a background
// re-embedding of the vector index and writing pending accesses).
func (w *Workspace) Close() error {
	w.Interrupt()
	if err := w.closeAccess(); err != nil {
		w.warn(err) // statistics only: never fail a close over them
	}
	return errors.Join(w.closeVectors(), w.closeSearch(), w.closeCode(), w.Store.Close())
}

// Interrupt ends the workspace's running parses at once and makes later
// ones fail with index.ErrInterrupted (a check then fails without writing
// anything): the workspace is about to close and no parse may hold up the
// shutdown. It cannot be undone; call it only before Close.
func (w *Workspace) Interrupt() {
	if w.Indexer != nil {
		w.Indexer.Interrupt()
	}
}

// Index brings the symbol graph up to date with the working tree. It
// refuses a root that is not a project (ErrNotProject) unless the
// workspace was opened with Options.Force. The built-in embedder learns
// from the run (afterIndex).
func (w *Workspace) Index(ctx context.Context) (index.Stats, error) {
	return w.index(ctx, index.RunOptions{}, true)
}

// IndexWith is Index with the run's options o: o.Progress is called with
// the files parsed of those to parse (index.RunOptions); the files o.First
// returns are parsed first, then the files with memories.
//
// When the configured embedder differs from the one the vector index was
// built with, IndexWith then re-embeds every memory with it in the
// foreground (ReembedChanged; progress to WatchReembed's watchers).
// A remote embedder whose server keeps failing is retried for
// ReembedForegroundGiveUp, then IndexWith returns st (the run
// succeeded) with a *VectorsPendingError (errors.As): the old vectors
// stay and the next IndexWith or the daemon resumes. Other failures of
// the re-embedding are reported through Options.Warn, not returned.
func (w *Workspace) IndexWith(ctx context.Context, o index.RunOptions) (index.Stats, error) {
	st, err := w.index(ctx, o, true)
	if err != nil {
		return st, err
	}
	if _, _, _, changed := w.pendingChange(); changed {
		err := w.reembedChanged(ctx, ReembedForegroundGiveUp)
		var pending *VectorsPendingError
		if errors.As(err, &pending) {
			return st, pending
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			w.warn(fmt.Errorf("re-embed for the new embedder: %w", err))
		}
	}
	return st, nil
}

// IndexKeepModel is Index for the write paths (remember, remember
// --batch, verify): when the built-in embedder's retraining is due
// (retrainNeeded), it is deferred, as by a check's run, to the next Index
// call or RetrainDeferred (the daemon's warm-up), so that a write embeds
// with the model the stored vectors were made with and never re-embeds
// every stored memory inside the write. A workspace with no model still
// trains one at its first embedding (embedder).
func (w *Workspace) IndexKeepModel(ctx context.Context) (index.Stats, error) {
	return w.index(ctx, index.RunOptions{}, false)
}

// index is IndexWith; with retrain false (a check's run) an existing built-in
// model is kept and the run's changed files are only counted towards the
// next retraining, which the next Index call (gloss index, remember, the
// daemon's runs) does: retraining re-embeds every memory, most of a
// check's CPU at 100,000 memories.
func (w *Workspace) index(ctx context.Context, o index.RunOptions, retrain bool) (index.Stats, error) {
	if err := w.checkProject(); err != nil {
		return index.Stats{}, err
	}
	if err := w.writable(); err != nil {
		return index.Stats{}, err
	}
	prev, err := w.Store.Generation()
	if err != nil {
		return index.Stats{}, err
	}
	// Files with memories first: their anchors resolve against the index
	// while the rest is still being parsed.
	callerFirst := o.First
	o.First = func() []string {
		var first []string
		if callerFirst != nil {
			first = callerFirst()
		}
		paths, _ := w.Store.AnchorPaths() // an unreadable store fails the run anyway
		return append(first, paths...)
	}
	st, err := w.Indexer.Run(ctx, o)
	if err == nil {
		w.syncCode(prev, st.Changed)
		w.afterIndex(ctx, st, retrain) // the built-in embedder learns from the index
	}
	return st, w.noteWriteFault(err)
}

// RelPath validates p (absolute, or relative to the current directory) and
// returns it workspace-relative and slash-separated. Paths outside the
// workspace, also through symlinks, are rejected.
func (w *Workspace) RelPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	rel, err := filepath.Rel(w.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("path %s is outside the workspace %s", p, w.Root)
	}
	if rel == "." {
		return "", fmt.Errorf("path %s is the workspace root, not a file", p)
	}
	if err := index.CheckSourcePath(filepath.ToSlash(rel)); err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// parseFile reads and parses a workspace file. The caller must Release the
// returned File. Files of languages gloss does not parse get a File with
// whitespace-separated tokens and no definitions.
func (w *Workspace) parseFile(rel string) (*index.File, error) {
	src, err := index.ReadSourceFile(w.Root, rel, w.MaxFileSize())
	if err != nil {
		return nil, err
	}
	return w.parseSource(rel, src)
}

func (w *Workspace) parseSource(rel string, src []byte) (*index.File, error) {
	if reason := index.CheckContent(src); reason != "" {
		return nil, fmt.Errorf("%s: cannot anchor to this file (%s)", rel, strings.ReplaceAll(reason, "_", " "))
	}
	lang := index.LanguageFor(rel)
	if lang == nil {
		return index.PlainFile(rel, src), nil
	}
	ps := w.TakeParsers()
	defer w.PutParsers(ps)
	return w.Indexer.ParseSource(ps, lang, rel, src)
}

// maxDocs bounds the document parse cache.
const maxDocs = 64

// overlayFile returns the parse of src as the document rel, re-parsing
// only what changed since the document's previous parse
// (index.ReparseTolerant: a version that does not parse costs one
// declaration's parse, not the whole file's).
// The File belongs to the cache: callers must hold docMu while they use it
// and must not Release it.
func (w *Workspace) overlayFile(rel string, src []byte) (*index.File, error) {
	old := w.docs[rel]
	if old != nil && bytes.Equal(old.Src, src) {
		return old, nil
	}
	if old == nil {
		if f := w.recordDocument(rel, src); f != nil {
			w.cacheDocument(rel, f)
			return f, nil
		}
	}
	w.docParses++
	var f *index.File
	var err error
	if lang := index.LanguageFor(rel); lang != nil && index.CheckContent(src) == "" {
		// The parse can be cancelled by CancelDocument (the editor closed
		// the document, its session ended).
		stop := new(uint32)
		w.stopMu.Lock()
		if w.docStops == nil {
			w.docStops = map[string]*uint32{}
		}
		w.docStops[rel] = stop
		w.stopMu.Unlock()
		ps := w.TakeParsers()
		restore := w.Indexer.WithStop(ps, lang, stop)
		if old != nil && old.Lang != nil {
			f, err = w.Indexer.ReparseTolerant(ps, old, src)
		} else {
			f, err = w.Indexer.ParseSource(ps, lang, rel, src)
		}
		restore()
		w.PutParsers(ps)
		w.stopMu.Lock()
		if w.docStops[rel] == stop {
			delete(w.docStops, rel)
		}
		w.stopMu.Unlock()
	} else {
		f, err = w.parseSource(rel, src)
	}
	if err != nil {
		return nil, err
	}
	w.cacheDocument(rel, f)
	return f, nil
}

// recordDocument returns the document rel built from its index record and
// stored token stream, without a parse, when src is the content that was
// indexed (index.RecordFile: same hash, parsed cleanly) and its tokens are
// stored; else nil. A document opened unchanged, the usual case, is then
// resolved from what the index run stored: on prometheus at 100,000
// memories the first hover in a newly opened file waited 0.30–0.34 s, of
// which ~0.14 s was the parse of a 2,700-line file (docs/benchmarks.md,
// session 22). Its first edit parses it whole (index.ReparseTolerant
// needs a syntax tree), as the open did before.
func (w *Workspace) recordDocument(rel string, src []byte) *index.File {
	lang := index.LanguageFor(rel)
	if lang == nil || index.CheckContent(src) != "" {
		return nil
	}
	rec, err := w.Store.File(rel)
	if err != nil {
		return nil
	}
	f := index.RecordFile(rec, lang, src)
	if f == nil || !w.storedTokens(f) {
		return nil
	}
	return f
}

// cacheDocument keeps f as the parse of the document rel, dropping another
// document's when maxDocs are kept. Callers hold docMu.
func (w *Workspace) cacheDocument(rel string, f *index.File) {
	if w.docs == nil {
		w.docs = map[string]*index.File{}
	}
	if len(w.docs) >= maxDocs {
		for k := range w.docs {
			delete(w.docs, k)
			break
		}
	}
	w.docs[rel] = f
}

// CancelDocument ends a running parse of the unsaved text of the document
// at path (absolute or workspace-relative): its resolution fails with
// index.ErrInterrupted and is not cached. The editor closed the document,
// or the session that had it open ended.
func (w *Workspace) CancelDocument(path string) {
	rel, err := w.RelPath(path)
	if err != nil {
		return
	}
	w.stopMu.Lock()
	if stop := w.docStops[rel]; stop != nil {
		atomic.StoreUint32(stop, 1)
	}
	w.stopMu.Unlock()
}

// ForgetDocument drops the cached parse of a document (the editor closed
// it), ending a parse of it that is running (CancelDocument).
func (w *Workspace) ForgetDocument(path string) {
	w.CancelDocument(path)
	rel, err := w.RelPath(path)
	if err != nil {
		return
	}
	w.docMu.Lock()
	delete(w.docs, rel)
	w.docMu.Unlock()
	w.docCache.forget(rel)
	w.forgetBuffer(rel)
}

// TakeParsers takes a set of tree-sitter parsers (one per language, made
// as needed by index.Indexer) from the workspace's pool, or an empty set;
// give it back with PutParsers. A set is used by one goroutine at a time.
func (w *Workspace) TakeParsers() map[*index.Language]*ts.Parser {
	w.parserMu.Lock()
	defer w.parserMu.Unlock()
	if n := len(w.parsers); n > 0 {
		ps := w.parsers[n-1]
		w.parsers = w.parsers[:n-1]
		return ps
	}
	return map[*index.Language]*ts.Parser{}
}

// PutParsers returns a set taken with TakeParsers to the pool.
func (w *Workspace) PutParsers(ps map[*index.Language]*ts.Parser) {
	w.parserMu.Lock()
	w.parsers = append(w.parsers, ps)
	w.parserMu.Unlock()
}

// git runs git in dir with a clean, hermetic configuration and returns its
// trimmed standard output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
