package memory

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory/confidence"
	"github.com/gloss-dev/gloss/memory/fields"
	"github.com/gloss-dev/gloss/scip"
)

// RememberRequest asks for a new memory. Exactly one of (Path with lines)
// or Symbol places it; a memory without place is allowed only when Path and
// Symbol are both empty and Unanchored is set.
type RememberRequest struct {
	// Text is the Markdown body (required).
	Text string `json:"text"`
	// Title defaults to the first line of Text (cut to fields.MaxTitle).
	Title string `json:"title,omitempty"`
	// Type defaults to "note".
	Type string   `json:"type,omitempty"`
	Tags []string `json:"tags,omitempty"`
	// Path is absolute or relative to the current directory; it must be
	// inside the workspace.
	Path string `json:"path,omitempty"`
	// StartLine and EndLine are 1-based and inclusive; EndLine 0 means
	// StartLine.
	StartLine int `json:"start_line,omitempty"`
	EndLine   int `json:"end_line,omitempty"`
	// Symbol is a SCIP symbol or a unique definition name.
	Symbol string `json:"symbol,omitempty"`
	// Scope is personal (default) or project.
	Scope string `json:"scope,omitempty"`
	// Source is user (default), agent, imported_git, imported_file or
	// inferred.
	Source     string `json:"source,omitempty"`
	Author     string `json:"author,omitempty"`
	Unanchored bool   `json:"-"`
	// AutoAnchor places a request that names no place (no Path, no
	// Symbol): on the one definition its title and text mention
	// (SuggestAnchors), else nowhere (a workspace-level memory). The
	// memory's Placement says which.
	AutoAnchor bool `json:"-"`
	// Content, when set, is the current (possibly unsaved) text of Path,
	// used instead of the file on disk (an editor's document overlay).
	Content []byte `json:"-"`
	// OnDuplicate is the policy for a near-duplicate on the same anchor
	// (OnDuplicateAsk, …; "" is add). The result's Decision says what
	// was done.
	OnDuplicate string `json:"on_duplicate,omitempty"`
	// ExpiresAt, when not zero, is when the memory expires (Memory.
	// ExpiresAt); it must be later than now.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// Pinned memories never decay (confidence.Of).
	Pinned bool `json:"pinned,omitempty"`
}

// Remember validates req, anchors it to the current file content and
// stores the memory durably. The store is unchanged on any error.
func (w *Workspace) Remember(ctx context.Context, req RememberRequest) (*Memory, error) {
	ms, errs := w.RememberBatch(ctx, []RememberRequest{req})
	if errs[0] != nil {
		return nil, errs[0]
	}
	return ms[0], nil
}

// RememberBatch creates one memory per request, in order; the i-th result
// is either a memory or an error. Valid requests are stored in durable
// writes of RememberChunk memories each (one Pebble batch and one search
// index update per chunk), so memory in use does not grow with the batch;
// invalid requests change nothing, and a failed write fails only its
// chunk's memories. Each file is parsed once for the whole batch while its
// parses fit batchFilesBudget.
func (w *Workspace) RememberBatch(ctx context.Context, reqs []RememberRequest) ([]*Memory, []error) {
	out := make([]*Memory, len(reqs))
	errs := make([]error, len(reqs))
	w.RememberBatchEach(ctx, reqs, func(i int, m *Memory, err error) { out[i], errs[i] = m, err })
	return out, errs
}

// RememberBatchEach is RememberBatch reporting each request's result to
// each as soon as its chunk of RememberChunk requests is done (committed,
// or failed), instead of returning them all at the end: i is the 0-based
// index of the request in reqs, and m is its memory or err why it has
// none.
// Requests are reported in order, every chunk before the next is started,
// and the batch keeps no result after reporting it, so a caller that
// prints and drops each result holds one chunk's memories at a time, not
// the whole batch's; reqs[i] is not read after i is reported, so the
// caller may drop it. each runs with w's write lock held: it must not call
// w's methods that write. On a store whose built-in embedder has no
// model yet, its training starts on another goroutine as the batch
// begins (trainAhead), on the store as it was before the batch, and the
// vector index is opened with that model by the batch's vector lane
// (claimTraining) while the next chunks go on: the model that training at
// first use before the first write gives, trained beside the first
// chunks.
func (w *Workspace) RememberBatchEach(ctx context.Context, reqs []RememberRequest, each func(i int, m *Memory, err error)) {
	w.RememberStream(ctx, slices.Values(reqs), len(reqs), each)
}

// RememberStream is RememberBatchEach over the requests of reqs, read a
// chunk of RememberChunk at a time as the batch goes, so that a batch of
// any size is one call: the batch's set-up (the body hash sites, the
// embedder's bulk mode) is done once, and each chunk's derived-index
// update runs beside the next chunk across the whole stream, where calls
// of RememberBatchEach each wait for their last one. Every bulkWindow
// requests the stream looks at the workspace again as a new call would
// (the commit checked out, files changed on disk: batchState.renew) and
// compacts the vector log (bulkRows).
// i is the 0-based index of the request in the stream. size is the number
// of requests reqs yields, when known (reserved room for their vectors);
// size ≤ 0: unknown. A stream that ends within its first chunk is handled
// exactly as a slice of that length (near-duplicate checks for at most
// maxDuplicateChecks requests). reqs runs on the caller's goroutine, with
// w.writeMu held (it must not call w's methods that write); every request
// it yields is reported, those of a chunk begun after ctx is done with
// ctx's error, so a source that should stop early checks ctx itself.
func (w *Workspace) RememberStream(ctx context.Context, reqs iter.Seq[RememberRequest], size int, each func(i int, m *Memory, err error)) {
	next, stop := iter.Pull(reqs)
	defer stop()
	chunk := make([]RememberRequest, 0, RememberChunk)
	ahead, more := next() // the request after the chunk, when more
	fill := func() {
		chunk = chunk[:0]
		for more && len(chunk) < RememberChunk {
			chunk = append(chunk, ahead)
			ahead, more = next()
		}
	}
	fill()
	if len(chunk) == 0 {
		return
	}
	n := len(chunk) // requests of the stream, when it ended within the chunk
	if more {
		n = max(size, len(chunk)+1)
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	defer w.trainAhead()() // first: it overlaps all of the batch before its first write
	st := w.newBatchState()
	st.duplicates = !more && n <= maxDuplicateChecks
	if w.keepBatchFiles {
		w.carryFiles(st)
	}
	defer st.release()
	defer w.keepFiles(st) // before st.release empties st.stored
	defer w.loadBatchSites(n)()
	if n > RememberChunk {
		st.bulk = newBulkRows(size)
		defer w.bulkVectors(st.bulk.reserve())()
	}
	defer w.batchGeneration()()
	out := make([]*Memory, len(chunk)) // the first chunk is the longest
	errs := make([]error, len(out))
	for lo := 0; len(chunk) > 0; {
		clear(out)
		clear(errs)
		w.rememberChunk(ctx, chunk, out[:len(chunk)], errs[:len(chunk)], st)
		clear(chunk) // reported below: the caller may drop its requests
		for k := range len(chunk) {
			each(lo+k, out[k], errs[k])
		}
		lo += len(chunk)
		st.trim()
		if lo%bulkWindow == 0 {
			st.renew(w)
		}
		fill()
	}
	st.derived.wait()
	clear(out) // the last chunk's memories are the caller's now
}

// newMemory builds the memory of a request from m, its validated fields
// (NewMemory, nil for a request that failed validation with
// verr), and its anchor (autoAnchor, then requestAnchors). Files read from
// disk are cached in st. It is called by RememberBatch with w.writeMu
// held; it returns the memory, not yet stored, or the first validation or
// anchoring error.
func (w *Workspace) newMemory(req RememberRequest, m *Memory, verr error, st *batchState) (*Memory, error) {
	if verr != nil {
		return nil, verr
	}
	if err := w.autoAnchor(&req, m); err != nil {
		return nil, err
	}
	anchors, err := w.requestAnchors(req, st)
	if err != nil {
		return nil, err
	}
	m.Anchors = anchors
	return m, nil
}

// validateChunk runs NewMemory over reqs on GOMAXPROCS goroutines
// (the secret scan of each text is most of it and needs no lock), then
// gives the memories new ids in request order, so that the ids of a batch
// sort as its requests do.
func (w *Workspace) validateChunk(reqs []RememberRequest) ([]*Memory, []error) {
	ms := make([]*Memory, len(reqs))
	errs := make([]error, len(reqs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := 0; k < min(runtime.GOMAXPROCS(0), len(reqs)); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(reqs) {
					return
				}
				ms[i], errs[i] = w.NewMemory(reqs[i])
			}
		}()
	}
	wg.Wait()
	for _, m := range ms {
		if m != nil {
			m.ID = ulid.Make().String()
		}
	}
	return ms, errs
}

// NewMemory validates the fields of req (text, type, title, scope,
// source, tags) as Remember does, applies their defaults and returns the
// new memory with a fresh id and timestamps, without anchors and not
// stored. It needs no lock and reads nothing from the store; the error
// describes the first invalid field.
func (w *Workspace) NewMemory(req RememberRequest) (*Memory, error) {
	text := strings.TrimSpace(req.Text)
	if text == "" {
		return nil, fmt.Errorf("memory text is empty")
	}
	typ := req.Type
	if typ == "" {
		typ = "note"
	}
	if err := ValidateType(typ); err != nil {
		return nil, err
	}
	title := strings.TrimSpace(req.Title)
	if title == "" {
		title = DeriveTitle(text)
	}
	if n := len([]rune(title)); n > fields.MaxTitle {
		return nil, fmt.Errorf("title is %d characters, the limit is %d", n, fields.MaxTitle)
	}
	scope, source, err := requestScopeSource(req)
	if err != nil {
		return nil, err
	}
	if err := ValidateOnDuplicate(req.OnDuplicate); err != nil {
		return nil, err
	}
	var tags []string
	for _, t := range req.Tags {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	if err := fields.Validate(title, text, tags); err != nil {
		return nil, err
	}
	now := w.now().UTC()
	if !req.ExpiresAt.IsZero() && !req.ExpiresAt.After(now) {
		return nil, fmt.Errorf("expiry %s is not in the future", req.ExpiresAt.UTC().Format(time.RFC3339))
	}
	author := req.Author
	if author == "" {
		author = w.authorName()
	}
	return &Memory{
		V: SchemaVersion, ID: ulid.Make().String(), Type: typ, Title: title, Body: text, Tags: tags,
		Scope: scope, Source: source, Author: author,
		CreatedAt: now, UpdatedAt: now, VerifiedAt: now,
		Confidence: 1, HalfLifeDays: confidence.HalfLifeOf(typ), ExpiresAt: req.ExpiresAt.UTC(), Pinned: req.Pinned,
	}, nil
}

// requestScopeSource returns the scope (default personal) and source
// (default user) of req, or an error naming the one that is unknown (the
// scope is checked first).
func requestScopeSource(req RememberRequest) (scope, source string, err error) {
	scope = req.Scope
	if scope == "" {
		scope = ScopePersonal
	}
	if scope != ScopePersonal && scope != ScopeProject {
		return "", "", fmt.Errorf("unknown scope %q (want personal or project)", scope)
	}
	source = req.Source
	if source == "" {
		source = "user"
	}
	switch source {
	case "user", "agent", "imported_git", "imported_file", "inferred":
	default:
		return "", "", fmt.Errorf("unknown source %q (want user, agent, imported_git, imported_file or inferred)", source)
	}
	return scope, source, nil
}

// requestAnchors places a new memory: the anchor of req.Symbol or of the
// lines of req.Path, nil when req is Unanchored (and names no place). It
// fails when both or neither place is given, or when the place cannot be
// anchored. Files it reads from disk are cached in st (released by the
// caller); it is called by RememberBatch with w.writeMu held.
func (w *Workspace) requestAnchors(req RememberRequest, st *batchState) ([]Anchor, error) {
	switch {
	case req.Symbol != "" && req.Path != "":
		return nil, fmt.Errorf("give either a path with lines or a symbol, not both")
	case req.Symbol != "":
		a, err := w.anchorSymbol(req.Symbol, st)
		if err != nil {
			return nil, err
		}
		return []Anchor{a}, nil
	case req.Path != "":
		a, err := w.anchorLines(req, st)
		if err != nil {
			return nil, err
		}
		return []Anchor{a}, nil
	case !req.Unanchored:
		return nil, fmt.Errorf("a memory needs a place: give --at PATH:LINE[-LINE] or --symbol")
	}
	return nil, nil
}

// anchorLines anchors the lines req.StartLine..req.EndLine (1-based,
// inclusive; EndLine 0 means StartLine) of req.Path, in req.Content when
// set (parsed and released here) or else on disk: from the file's stored
// index record when that places the lines on a definition (storedFile,
// storedLinesAnchor: no parse), else parsed once and cached in st.files.
// It checks the path is in the workspace, the lines are
// ordered and the file is within the indexed size limit, and returns the
// anchor or the first failure. It is called with w.writeMu held.
func (w *Workspace) anchorLines(req RememberRequest, st *batchState) (Anchor, error) {
	rel, err := st.relPath(w, req.Path)
	if err != nil {
		return Anchor{}, err
	}
	if req.StartLine < 1 {
		return Anchor{}, fmt.Errorf("start line must be 1 or more (lines are 1-based), got %d", req.StartLine)
	}
	end := req.EndLine
	if end == 0 {
		end = req.StartLine
	}
	if end < req.StartLine {
		return Anchor{}, fmt.Errorf("end line %d is before start line %d", end, req.StartLine)
	}
	// The file as the batch read it gives its size (a file over the limit
	// has none: it is not read); a stat per request was 0.4 CPU-s of a
	// +80,000 batch (pprof, docs/benchmarks.md).
	var stored *index.File
	size := int64(len(req.Content))
	if req.Content == nil {
		if stored = w.storedFile(rel, st); stored != nil {
			size = int64(len(stored.Src))
		} else if fi, err := os.Stat(filepath.Join(w.Root, filepath.FromSlash(rel))); err == nil {
			size = fi.Size()
		}
	}
	if max := w.MaxFileSize(); size > max {
		return Anchor{}, fmt.Errorf("%s is %d bytes, over the %d-byte limit of indexed files (--max-file-size): gloss cannot follow code there", rel, size, max)
	}
	if stored != nil {
		if a, ok, err := w.storedLinesAnchor(stored, req.StartLine-1, end-1); ok || err != nil {
			return a, err
		}
	}
	var f *index.File
	if req.Content != nil {
		if f, err = w.parseSource(rel, req.Content); err != nil {
			return Anchor{}, err
		}
		defer f.Release()
	} else if f, err = w.cachedParse(rel, st.files); err != nil {
		return Anchor{}, err
	}
	return w.anchorAt(f, req.StartLine-1, end-1)
}

func (w *Workspace) cachedParse(rel string, files map[string]*index.File) (*index.File, error) {
	if f, ok := files[rel]; ok {
		return f, nil
	}
	f, err := w.parseFile(rel)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	f.DropTree() // a batch keeps many files: keep their tokens, not their trees
	files[rel] = f
	return f, nil
}

// anchorSymbol anchors to a definition given by SCIP symbol or by a unique
// name ("Execute", "Command.Execute" or "Command#Execute"), from the stored
// record of its file when the file on disk is what was indexed
// (storedFile), else from a parse cached in st.files.
func (w *Workspace) anchorSymbol(sym string, st *batchState) (Anchor, error) {
	defs, err := w.Store.DefsBySymbol(sym)
	if err != nil {
		return Anchor{}, err
	}
	if len(defs) == 0 {
		defs, err = w.defsByName(sym)
		if err != nil {
			return Anchor{}, err
		}
	}
	switch len(defs) {
	case 0:
		return Anchor{}, fmt.Errorf("no definition %q in the index (run `gloss index` if the code is new)", sym)
	case 1:
	default:
		return Anchor{}, ambiguousName(sym, defs)
	}
	f := w.storedFile(defs[0].Path, st)
	if f == nil {
		if f, err = w.cachedParse(defs[0].Path, st.files); err != nil {
			return Anchor{}, err
		}
	}
	for _, d := range f.Defs {
		if d.Symbol == defs[0].Symbol {
			return w.SymbolAnchor(f, d), nil
		}
	}
	return Anchor{}, fmt.Errorf("%s changed since it was indexed: run `gloss index` and try again", defs[0].Path)
}

func (w *Workspace) defsByName(name string) ([]index.Definition, error) {
	parent := ""
	if i := strings.LastIndexAny(name, ".#"); i > 0 {
		parent, name = name[:i], name[i+1:]
	}
	defs, err := w.Store.DefsByName(name)
	if err != nil || parent == "" {
		return defs, err
	}
	var out []index.Definition
	for _, d := range defs {
		if d.Parent != "" && scip.DisplayName(d.Parent) == parent {
			out = append(out, d)
		}
	}
	return out, nil
}

// AmbiguousNameError is the error of a name ("Close", "Conn.Close") that
// names several definitions where one is needed (remember --symbol, why,
// impact, context's symbols, memories-for-symbol). Its message lists up
// to 8 of their SCIP symbols, each with its path and 1-based first line.
type AmbiguousNameError struct {
	// Name is the name as given.
	Name string
	// Defs are the definitions it names.
	Defs []index.Definition
}

// Error implements error.
func (e *AmbiguousNameError) Error() string {
	var names []string
	for i, d := range e.Defs {
		if i == 8 {
			names = append(names, fmt.Sprintf("… and %d more", len(e.Defs)-8))
			break
		}
		names = append(names, fmt.Sprintf("%s (%s:%d)", d.Symbol, d.Path, d.Range.StartLine+1))
	}
	return fmt.Sprintf("%q names %d definitions; give the SCIP symbol:\n  %s", e.Name, len(e.Defs), strings.Join(names, "\n  "))
}

// ambiguousName returns the AmbiguousNameError of name and defs.
func ambiguousName(name string, defs []index.Definition) error {
	return &AmbiguousNameError{Name: name, Defs: defs}
}
