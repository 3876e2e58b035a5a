package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/scip"
)

// RememberRequest asks for a new memory. Exactly one of (Path with lines)
// or Symbol places it; a memory without place is allowed only when Path and
// Symbol are both empty and Unanchored is set.
type RememberRequest struct {
	// Text is the Markdown body (required).
	Text string `json:"text"`
	// Title defaults to the first line of Text (cut to MaxTitle).
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
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	out := make([]*Memory, len(reqs))
	errs := make([]error, len(reqs))
	st := w.newBatchState()
	st.duplicates = len(reqs) <= maxDuplicateChecks
	defer st.release()
	defer w.loadBatchSites(len(reqs))()
	for lo := 0; lo < len(reqs); lo += RememberChunk {
		hi := min(lo+RememberChunk, len(reqs))
		w.rememberChunk(ctx, reqs[lo:hi], out[lo:hi], errs[lo:hi], st)
		st.trim()
	}
	return out, errs
}

// newMemory validates a request and builds the memory with its anchor
// (memoryFromRequest, then requestAnchors). Files parsed from disk are
// cached in files. It is called by RememberBatch with w.writeMu held; it
// returns the memory, not yet stored, or the first validation or anchoring
// error.
func (w *Workspace) newMemory(req RememberRequest, files map[string]*index.File) (*Memory, error) {
	m, err := w.memoryFromRequest(req)
	if err != nil {
		return nil, err
	}
	if err := w.autoAnchor(&req, m); err != nil {
		return nil, err
	}
	anchors, err := w.requestAnchors(req, files)
	if err != nil {
		return nil, err
	}
	m.Anchors = anchors
	return m, nil
}

// memoryFromRequest validates the fields of req (text, type, title, scope,
// source, tags), applies their defaults and returns the new memory with a
// fresh id and timestamps, without anchors. It needs no lock and reads
// nothing from the store; the error describes the first invalid field.
func (w *Workspace) memoryFromRequest(req RememberRequest) (*Memory, error) {
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
	if n := len([]rune(title)); n > MaxTitle {
		return nil, fmt.Errorf("title is %d characters, the limit is %d", n, MaxTitle)
	}
	scope, source, err := requestScopeSource(req)
	if err != nil {
		return nil, err
	}
	var tags []string
	for _, t := range req.Tags {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	if err := validateFields(title, text, tags); err != nil {
		return nil, err
	}
	now := w.now().UTC()
	author := req.Author
	if author == "" {
		author = w.author
	}
	return &Memory{
		V: SchemaVersion, ID: ulid.Make().String(), Type: typ, Title: title, Body: text, Tags: tags,
		Scope: scope, Source: source, Author: author,
		CreatedAt: now, UpdatedAt: now, VerifiedAt: now,
		Confidence: 1, HalfLifeDays: halfLives[typ],
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
// anchored. Files it parses from disk are cached in files (released by the
// caller); it is called by RememberBatch with w.writeMu held.
func (w *Workspace) requestAnchors(req RememberRequest, files map[string]*index.File) ([]Anchor, error) {
	switch {
	case req.Symbol != "" && req.Path != "":
		return nil, fmt.Errorf("give either a path with lines or a symbol, not both")
	case req.Symbol != "":
		a, err := w.anchorSymbol(req.Symbol, files)
		if err != nil {
			return nil, err
		}
		return []Anchor{a}, nil
	case req.Path != "":
		a, err := w.anchorLines(req, files)
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
// set (parsed and released here) or else on disk (parsed once and cached
// in files). It checks the path is in the workspace, the lines are
// ordered and the file is within the indexed size limit, and returns the
// anchor or the first failure. It is called with w.writeMu held.
func (w *Workspace) anchorLines(req RememberRequest, files map[string]*index.File) (Anchor, error) {
	rel, err := w.RelPath(req.Path)
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
	size := int64(len(req.Content))
	if req.Content == nil {
		if st, err := os.Stat(filepath.Join(w.Root, filepath.FromSlash(rel))); err == nil {
			size = st.Size()
		}
	}
	if max := w.maxFileSize(); size > max {
		return Anchor{}, fmt.Errorf("%s is %d bytes, over the %d-byte limit of indexed files (--max-file-size): gloss cannot follow code there", rel, size, max)
	}
	var f *index.File
	if req.Content != nil {
		if f, err = w.parseSource(rel, req.Content); err != nil {
			return Anchor{}, err
		}
		defer f.Release()
	} else if f, err = w.cachedParse(rel, files); err != nil {
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
// name ("Execute", "Command.Execute" or "Command#Execute").
func (w *Workspace) anchorSymbol(sym string, files map[string]*index.File) (Anchor, error) {
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
		var names []string
		for i, d := range defs {
			if i == 8 {
				names = append(names, fmt.Sprintf("… and %d more", len(defs)-8))
				break
			}
			names = append(names, fmt.Sprintf("%s (%s:%d)", d.Symbol, d.Path, d.Range.StartLine+1))
		}
		return Anchor{}, fmt.Errorf("%q names %d definitions; give the SCIP symbol:\n  %s", sym, len(defs), strings.Join(names, "\n  "))
	}
	f, err := w.cachedParse(defs[0].Path, files)
	if err != nil {
		return Anchor{}, err
	}
	for _, d := range f.Defs {
		if d.Symbol == defs[0].Symbol {
			return w.symbolAnchor(f, d), nil
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

// CheckResult is what Check found.
type CheckResult struct {
	// Memories are all memories with their current anchor statuses (Check),
	// or only those re-resolved (CheckViews).
	Memories []*Memory
	// Views are all memories as stored summaries, in place order
	// (CheckViews only).
	Views []View
	// Index is the indexing run Check started with.
	Index index.Stats
	// Resolved counts anchors re-resolved; Updated memories written back.
	Resolved int
	Updated  int
	Elapsed  time.Duration
	// Files is what synchronizing the memory files found (SyncMemoryFiles).
	Files SyncResult
}

// AnchorsChanged reports whether the check stored new anchor places or
// statuses (anchors re-resolved or memories written back) or loaded or
// hid memories from their files, which is when diagnostics and code lenses
// shown elsewhere are out of date.
func (r CheckResult) AnchorsChanged() bool {
	return r.Updated > 0 || r.Resolved > 0 || r.Files.Changed()
}

// Check rescans the working tree (catching edits, git checkout, pull and
// rebase), re-resolves every anchor whose file or index changed since its
// last resolution, stores the new statuses and places durably, and returns
// all memories. Memories are never dropped: an anchor that cannot be found
// keeps its last known place with status deleted.
func (w *Workspace) Check(ctx context.Context) (CheckResult, error) {
	start := time.Now()
	var res CheckResult
	st, err := w.Index(ctx)
	res.Index = st
	if err != nil {
		return res, err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	mems, err := w.List()
	if err != nil {
		return res, err
	}
	if res.Files, err = w.syncFilesListed(ctx, "", mems); err != nil {
		return res, err
	}
	if res.Files.Changed() || len(res.Files.Written) > 0 {
		if mems, err = w.List(); err != nil { // the files changed the store
			return res, err
		}
	}
	r, err := w.newResolver()
	if err != nil {
		return res, err
	}
	defer r.release()
	b := w.Store.NewMemoryBatch()
	var updated []*Memory
	for _, m := range mems {
		if err := ctx.Err(); err != nil {
			b.Close()
			return res, err
		}
		var old *Memory
		for i := range m.Anchors {
			a := &m.Anchors[i]
			if !r.needs(a) {
				continue
			}
			if old == nil {
				old = m.clone()
			}
			*a = r.resolve(*a)
			res.Resolved++
		}
		if old != nil {
			if err := putMemory(b, old, m); err != nil {
				b.Close()
				return res, err
			}
			updated = append(updated, m)
		}
	}
	if len(updated) > 0 {
		if err := w.commit(b, updated, nil); err != nil {
			return res, err
		}
	} else {
		b.Close()
	}
	res.Memories, res.Updated, res.Elapsed = mems, len(updated), time.Since(start)
	return res, nil
}

// At returns the memories with an anchor in path (validated like RelPath)
// overlapping the 1-based inclusive lines first..last; first 0 means the
// whole file.
func (w *Workspace) At(path string, first, last int) ([]*Memory, error) {
	rel, err := w.RelPath(path)
	if err != nil {
		return nil, err
	}
	if last < first {
		return nil, fmt.Errorf("end line %d is before start line %d", last, first)
	}
	ids, err := w.idsAtPath(rel)
	if err != nil {
		return nil, err
	}
	var out []*Memory
	for _, id := range ids {
		m, err := w.get(id)
		if err != nil {
			return nil, err
		}
		for _, a := range m.Anchors {
			if a.Path != rel {
				continue
			}
			if first == 0 || (a.Range.StartLine+1 <= last && a.Range.LastLine()+1 >= first) {
				out = append(out, m)
				break
			}
		}
	}
	return out, nil
}

// Verify accepts the current code as the memory's truth: each anchor is
// re-resolved and re-made at its current place (new hashes, snapshot and
// origin), status fresh. A deleted anchor cannot be verified: the error
// asks to re-anchor or forget.
func (w *Workspace) Verify(ctx context.Context, id string) (*Memory, error) {
	return w.VerifyDocuments(ctx, id, nil)
}

// VerifyDocuments is Verify against the text the user sees: docs maps
// the paths (absolute or workspace-relative, validated like RelPath) of
// open editor documents to their unsaved text, which is used instead of
// the file on disk, so that the anchors are re-made from the buffer (an
// anchor verified against the disk would be stale again once the buffer
// is saved). A path outside the workspace is an error.
func (w *Workspace) VerifyDocuments(ctx context.Context, id string, docs map[string][]byte) (*Memory, error) {
	overlay := map[string][]byte{}
	for p, src := range docs {
		rel, err := w.RelPath(p)
		if err != nil {
			return nil, err
		}
		overlay[rel] = src
	}
	if _, err := w.Index(ctx); err != nil {
		return nil, err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	m, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	old := m.clone()
	if len(overlay) > 0 {
		w.docMu.Lock() // overlayFile's parse cache
		defer w.docMu.Unlock()
	}
	r, err := w.newResolver()
	if err != nil {
		return nil, err
	}
	defer r.release()
	if len(overlay) > 0 {
		r.overlay = overlay
	}
	for i := range m.Anchors {
		a := r.resolve(m.Anchors[i])
		if a.Status == StatusDeleted {
			return nil, fmt.Errorf("anchor %d of memory %s (%s) cannot be found; re-anchor or forget the memory", i+1, m.ID, a.Path)
		}
		f := r.parsed(a.Path)
		if f == nil {
			return nil, fmt.Errorf("read %s", a.Path)
		}
		var na Anchor
		if a.Kind == KindSymbol {
			found := false
			for _, d := range f.Defs {
				if d.Symbol == a.Symbol {
					na, found = w.symbolAnchor(f, d), true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("%s changed during verification; try again", a.Path)
			}
		} else {
			na = w.spanAnchor(f, a.Range.StartLine, a.Range.LastLine())
		}
		w.stampGit(&na)
		m.Anchors[i] = na
	}
	now := w.now().UTC()
	m.VerifiedAt, m.UpdatedAt, m.NeedsReview = now, now, false
	if err := w.save(old, m); err != nil {
		return nil, err
	}
	return m, nil
}

// save writes the memory's Markdown file (stampFile), durably replaces
// old (as stored) by m, then updates the derived search index. The store
// and the file are unchanged when it returns an error.
func (w *Workspace) save(old, m *Memory) error {
	w.stampFile(m)
	b := w.Store.NewMemoryBatch()
	err := putMemory(b, old, m)
	if err == nil {
		err = w.commit(b, []*Memory{m}, nil)
	} else {
		b.Close()
	}
	if err != nil {
		if old.Scope == ScopeProject {
			w.stampFile(old.clone())
		} else {
			_ = w.RemoveMemoryFile(m)
		}
		return err
	}
	if old.Scope == ScopeProject && m.Scope != ScopeProject {
		if err := w.RemoveMemoryFile(old); err != nil {
			w.warn(fmt.Errorf("remove memory file of %s: %w", m.ID, err))
		}
	}
	return nil
}

// stampGit records the commit checked out now and the blob of the anchor's
// file in it ("" outside git or for untracked files).
func (w *Workspace) stampGit(a *Anchor) {
	a.GitCommit, _ = git(w.Root, "rev-parse", "--verify", "-q", "HEAD")
	a.GitBlob = ""
	if a.GitCommit != "" {
		a.GitBlob, _ = git(w.Root, "rev-parse", "--verify", "-q", "HEAD:"+a.Path)
	}
}

// Status summarizes the workspace.
type Status struct {
	Root      string         `json:"root"`
	ProjectID string         `json:"project_id"`
	DataDir   string         `json:"data_dir"`
	Memories  int            `json:"memories"`
	Stale     int            `json:"stale"`
	ByStatus  map[string]int `json:"anchors_by_status"`
	ByType    map[string]int `json:"memories_by_type"`
	Files     int            `json:"files"`
	Symbols   int            `json:"symbols"`
}

// Status counts memories, stale memories and indexed files and symbols as
// stored (it does not rescan; run Check for that).
func (w *Workspace) Status() (Status, error) {
	s := Status{Root: w.Root, ProjectID: w.ID, DataDir: w.Dir, ByStatus: map[string]int{}, ByType: map[string]int{}}
	mems, err := w.List()
	if err != nil {
		return s, err
	}
	for _, m := range mems {
		s.Memories++
		s.ByType[m.Type]++
		if m.Stale() {
			s.Stale++
		}
		for _, a := range m.Anchors {
			s.ByStatus[a.Status]++
		}
	}
	metas, err := w.Store.FileMetas()
	for _, fm := range metas {
		s.Files++
		s.Symbols += fm.Defs
	}
	return s, err
}

// SortByPlace orders memories by their first anchor's path and line.
func SortByPlace(ms []*Memory) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if len(a.Anchors) == 0 || len(b.Anchors) == 0 {
			return len(a.Anchors) > len(b.Anchors)
		}
		if a.Anchors[0].Path != b.Anchors[0].Path {
			return a.Anchors[0].Path < b.Anchors[0].Path
		}
		return a.Anchors[0].Range.StartLine < b.Anchors[0].Range.StartLine
	})
}

// maxFileSize is the indexing size limit in bytes.
func (w *Workspace) maxFileSize() int64 {
	if w.Indexer.MaxFileSize > 0 {
		return w.Indexer.MaxFileSize
	}
	return index.DefaultMaxFileSize
}
