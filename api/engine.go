package api

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/fields"
)

// Host is what Engine needs of the door it serves: the workspace folders,
// the text of open documents, and where to report effects. The LSP server
// implements it per request (over the snapshot the request was given);
// Single implements it for one workspace without documents (the CLI).
type Host interface {
	// Workspaces returns the session's workspaces, longest root first (so
	// nested roots win).
	Workspaces() []*memory.Workspace
	// Document returns the unsaved text of the open document at the
	// absolute path, ok false when it is not open.
	Document(path string) (text []byte, ok bool)
	// Changed is called after a command changed w's store: mems, when not
	// nil, are all of w's memories as a check left them; anchorsChanged
	// reports whether stored anchors changed (then other sessions must
	// refresh).
	Changed(w *memory.Workspace, mems []*memory.Memory, anchorsChanged bool)
	// Indexed is called after gloss.index ran on w.
	Indexed(w *memory.Workspace, st index.Stats)
	// ShowDocument asks the client to open the file at the absolute path
	// (a memory's Markdown file).
	ShowDocument(path string)
}

// Engine implements Interface over memory.Workspace: the one
// implementation every door calls.
type Engine struct {
	Host Host
	// IndexFirst makes Remember, RememberBatch and Verify bring the index
	// up to date first (the CLI, which has no file watcher).
	IndexFirst bool
	// Progress, when set, receives the progress of the long commands:
	// ImportGit (commits read) and Index (files parsed of those to parse).
	// The door that builds the Engine sets it: the LSP server sends
	// $/progress, the CLI draws a progress bar.
	Progress Progress
	// Reembed, when set, receives the progress of a re-embedding of the
	// vector index that Index runs in the foreground: the built-in
	// embedder's retraining or the re-embedding for a changed embedder
	// (memory.Workspace.WatchReembed: running true at its start and each
	// batch, false once at its end). The CLI draws a progress bar.
	Reembed func(st memory.ReembedStatus, running bool)
}

var _ Interface = (*Engine)(nil)

// Single is a Host of one workspace with no open documents and no client
// to notify (the CLI's direct backend).
type Single struct{ W *memory.Workspace }

// Workspaces implements Host.
func (s Single) Workspaces() []*memory.Workspace { return []*memory.Workspace{s.W} }

// Document implements Host.
func (Single) Document(string) ([]byte, bool) { return nil, false }

// Changed implements Host.
func (Single) Changed(*memory.Workspace, []*memory.Memory, bool) {}

// Indexed implements Host.
func (Single) Indexed(*memory.Workspace, index.Stats) {}

// ShowDocument implements Host.
func (Single) ShowDocument(string) {}

// place is a validated Location: the workspace, the workspace-relative
// path, the document text and 1-based inclusive lines.
type place struct {
	w           *memory.Workspace
	path, rel   string
	src         []byte // the document's text (open or on disk)
	open        bool
	first, last int
}

// text returns the open document's text of path, else the file on disk.
func (e *Engine) text(w *memory.Workspace, path string) ([]byte, bool, error) {
	return e.textInto(nil, w, path)
}

// textInto is text reading a file on disk into dst's room
// (Workspace.ReadFileInto); an open document's text is the host's.
func (e *Engine) textInto(dst []byte, w *memory.Workspace, path string) ([]byte, bool, error) {
	if src, ok := e.Host.Document(path); ok {
		return src, true, nil
	}
	src, err := w.ReadFileInto(dst, path)
	return src, false, err
}

// workspaceOf returns the workspace containing the document uri and its
// absolute path.
func (e *Engine) workspaceOf(cmd, uri string) (*memory.Workspace, string, error) {
	if uri == "" {
		return nil, "", invalid("%s: missing \"uri\"", cmd)
	}
	path, err := URIToPath(uri)
	if err != nil {
		return nil, "", invalid("%s: %v", cmd, err)
	}
	w := memory.WorkspaceFor(e.Host.Workspaces(), path)
	if w == nil {
		return nil, "", invalid("%s: %s is outside the workspace folders", cmd, uri)
	}
	return w, path, nil
}

// place validates loc against its document; a nil range means the whole
// document when whole is set.
func (e *Engine) place(cmd string, loc Location, whole bool) (*place, error) {
	return e.placeIn(cmd, loc, whole, nil)
}

// placeIn is place with the path checks and line counts of the files of
// a batch cached in pc (nil: none); a file on disk read through pc has
// no src in the place (only open documents keep their text).
func (e *Engine) placeIn(cmd string, loc Location, whole bool, pc *placeCache) (*place, error) {
	w, path, err := e.workspaceOf(cmd, loc.URI)
	if err != nil {
		return nil, err
	}
	ft, err := pc.file(e, w, path)
	if err != nil {
		return nil, invalid("%s: %v", cmd, err)
	}
	rel, src, open, n := ft.rel, ft.src, ft.open, ft.lines
	r := loc.Range
	if r == nil {
		if !whole {
			return nil, invalid("%s: missing \"range\"", cmd)
		}
		r = &Range{End: Position{Line: n}}
	}
	if r.Start.Line < 0 || r.Start.Character < 0 || r.End.Line < 0 || r.End.Character < 0 {
		return nil, invalid("%s: malformed range: negative position", cmd)
	}
	if r.End.Line < r.Start.Line || (r.End.Line == r.Start.Line && r.End.Character < r.Start.Character) {
		return nil, invalid("%s: malformed range: end %d:%d is before start %d:%d", cmd, r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	if r.Start.Line >= n || r.End.Line > n || (r.End.Line == n && r.End.Character > 0) {
		// In 1-based lines, as people count them (the MCP server's form).
		last := r.End.Line // 0-based
		if r.End.Character == 0 && last > r.Start.Line {
			last-- // ends at the start of a line
		}
		return nil, invalid("%s: lines %d-%d are out of bounds: %s has %d lines", cmd, r.Start.Line+1, last+1, rel, n)
	}
	last := r.End.Line
	if r.End.Character == 0 && r.End.Line > r.Start.Line {
		last-- // the range ends at the start of a line
	}
	return &place{w: w, path: path, rel: rel, src: src, open: open, first: r.Start.Line + 1, last: last + 1}, nil
}

// find returns the workspace holding memory id and the memory.
func (e *Engine) find(cmd, id string) (*memory.Workspace, *memory.Memory, error) {
	if strings.TrimSpace(id) == "" {
		return nil, nil, invalid("%s: missing \"id\"", cmd)
	}
	var firstErr error
	for _, w := range e.Host.Workspaces() {
		m, err := w.Get(id)
		if err == nil {
			return w, m, nil
		}
		if !errors.Is(err, memory.ErrNotFound) && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, nil, invalid("%s: %v", cmd, firstErr)
	}
	return nil, nil, invalid("%s: no memory %q", cmd, id)
}

// request turns RememberArgs into the engine's request: the symbol, or
// the validated place.
func (e *Engine) request(a RememberArgs, pc *placeCache) (memory.RememberRequest, *place, error) {
	req := memory.RememberRequest{Text: a.Text, Title: a.Title, Type: a.Type, Tags: a.Tags, Scope: a.Scope, Source: a.Source, Symbol: a.Symbol}
	req.OnDuplicate = a.OnDuplicate
	if err := e.lifecycleRequest(a, &req); err != nil {
		return req, nil, err
	}
	req.ApplyDraftDefaults()
	if n := len([]rune(strings.TrimSpace(req.Title))); n > fields.MaxTitle {
		req.Title = memory.DeriveTitle(req.Title)
	}
	if a.Symbol != "" {
		return req, nil, nil
	}
	if a.URI == "" && a.Range == nil {
		// No place: the memory goes to the first workspace, on the one
		// definition its text mentions, else workspace-level.
		ws := e.Host.Workspaces()
		if len(ws) == 0 {
			return req, nil, invalid("%s: no workspace folder is open", Remember.name)
		}
		req.AutoAnchor = true
		return req, &place{w: ws[0]}, nil
	}
	pl, err := e.placeIn(Remember.name, a.Location, false, pc)
	if err != nil {
		return req, nil, err
	}
	req.Path, req.StartLine, req.EndLine = pl.path, pl.first, pl.last
	if pl.open {
		req.Content = pl.src
	}
	return req, pl, nil
}

// indexFirst brings w's index up to date when the engine is asked to.
// A retraining of the built-in embedder found due is deferred
// (memory.Workspace.IndexKeepModel): it re-embeds every stored memory,
// which is no part of a write.
func (e *Engine) indexFirst(ctx context.Context, w *memory.Workspace) error {
	if !e.IndexFirst {
		return nil
	}
	_, err := w.IndexKeepModel(ctx)
	return err
}

// Remember implements Interface.
func (e *Engine) Remember(ctx context.Context, a RememberArgs) (memory.View, error) {
	res, err := e.RememberBatch(ctx, RememberBatchArgs{Items: []RememberArgs{a}})
	if err != nil {
		return memory.View{}, err
	}
	if it := res.Items[0]; it.Error != "" {
		return memory.View{}, invalid("%s: %s", Remember.name, strings.TrimPrefix(it.Error, Remember.name+": "))
	}
	return *res.Items[0].Memory, nil
}

// RememberBatch implements Interface. Items placed by symbol go to the
// first workspace that defines the symbol.
func (e *Engine) RememberBatch(ctx context.Context, a RememberBatchArgs) (RememberBatchResult, error) {
	out := RememberBatchResult{Items: make([]BatchItem, len(a.Items))}
	err := e.RememberBatchEach(ctx, a, func(i int, it BatchItem) { out.Items[i] = it })
	return out, err
}

// RememberBatchEach is RememberBatch reporting each item's result to each
// as soon as it is known instead of returning them together: i is the
// 0-based index of the item in a.Items. Items that cannot be placed are
// reported first, then each workspace's items in their order as its
// chunks are committed (memory.Workspace.RememberBatchEach), then the
// items placed by symbol; an item is reported once, and not at all when
// the returned error (an index run that failed before a workspace's
// items were stored) stops the batch. each runs with the workspace's
// write lock held: it must not write through e. Drafts' memory files are
// shown (Host.ShowDocument) after the lock is released.
func (e *Engine) RememberBatchEach(ctx context.Context, a RememberBatchArgs, each func(i int, it BatchItem)) error {
	r := newBatchReport(e, each)
	pc := &placeCache{}
	var jobs []batchJob
	for i, it := range a.Items {
		req, pl, err := e.request(it, pc)
		switch {
		case err != nil:
			each(i, BatchItem{Error: err.Error()})
		case pl == nil:
			jobs = append(jobs, batchJob{i: i, req: req})
		default:
			jobs = append(jobs, batchJob{i: i, req: req, w: pl.w})
		}
	}
	return r.rememberJobs(ctx, jobs)
}

// batchJob is an item of a batch placed: its 0-based index in the batch,
// its request, and its workspace (nil: placed by symbol, in the first
// workspace that defines it).
type batchJob struct {
	i   int
	req memory.RememberRequest
	w   *memory.Workspace
}

// batchReport is what the batches of an Engine call share: the call's
// each, the memory files of drafts to show once the workspace's write
// lock is released, and the workspaces already indexed for the call
// (Engine.IndexFirst: once per workspace and call).
type batchReport struct {
	e       *Engine
	each    func(i int, it BatchItem)
	drafts  []string
	indexed map[*memory.Workspace]bool
}

func newBatchReport(e *Engine, each func(i int, it BatchItem)) *batchReport {
	return &batchReport{e: e, each: each, indexed: map[*memory.Workspace]bool{}}
}

// indexFirst is Engine.indexFirst once per workspace of the call.
func (r *batchReport) indexFirst(ctx context.Context, w *memory.Workspace) error {
	if r.indexed[w] {
		return nil
	}
	if err := r.e.indexFirst(ctx, w); err != nil {
		return err
	}
	r.indexed[w] = true
	return nil
}

// report reports item i's result: m stored in w, or err.
func (r *batchReport) report(w *memory.Workspace, i int, m *memory.Memory, err error) {
	if err != nil {
		r.each(i, BatchItem{Error: err.Error()})
		return
	}
	v := memory.ViewOf(m)
	r.each(i, BatchItem{Memory: &v})
	if m.Body == memory.DraftText {
		if f := w.MemoryFile(m); f != "" {
			r.drafts = append(r.drafts, f)
		}
	}
}

// done is called when w's write lock is released after a batch stored in
// it: the drafts are shown and the host told.
func (r *batchReport) done(w *memory.Workspace) {
	for _, f := range r.drafts {
		r.e.Host.ShowDocument(f)
	}
	r.drafts = r.drafts[:0]
	r.e.Host.Changed(w, nil, true)
}

// rememberJobs stores jobs: each workspace's, in their order, in one
// memory.Workspace.RememberBatchEach (workspaces in the order of their
// first job), then those placed by symbol one at a time. The error of an
// index run (indexFirst) stops it; jobs not stored then are not reported.
func (r *batchReport) rememberJobs(ctx context.Context, jobs []batchJob) error {
	byW := map[*memory.Workspace][]batchJob{}
	var order []*memory.Workspace
	var bySymbol []batchJob
	for _, j := range jobs {
		if j.w == nil {
			bySymbol = append(bySymbol, j)
			continue
		}
		if byW[j.w] == nil {
			order = append(order, j.w)
		}
		byW[j.w] = append(byW[j.w], j)
	}
	for _, w := range order {
		jobs := byW[w]
		if err := r.indexFirst(ctx, w); err != nil {
			return err
		}
		reqs := make([]memory.RememberRequest, len(jobs))
		for k, j := range jobs {
			reqs[k] = j.req
		}
		byW[w] = nil // the requests are in reqs now
		w.RememberBatchEach(ctx, reqs, func(k int, m *memory.Memory, err error) {
			r.report(w, jobs[k].i, m, err)
			reqs[k], jobs[k].req = memory.RememberRequest{}, memory.RememberRequest{} // reported: nothing of it is kept
		})
		r.done(w)
	}
	for _, j := range bySymbol {
		w, m, err := r.e.rememberSymbol(ctx, j.req)
		r.report(w, j.i, m, err)
		if err == nil {
			r.done(w)
		}
	}
	return nil
}

// rememberSymbol remembers req in the first workspace that defines its
// symbol.
func (e *Engine) rememberSymbol(ctx context.Context, req memory.RememberRequest) (*memory.Workspace, *memory.Memory, error) {
	var firstErr error
	for _, w := range e.Host.Workspaces() {
		if err := e.indexFirst(ctx, w); err != nil {
			return nil, nil, err
		}
		m, err := w.Remember(ctx, req)
		if err == nil {
			return w, m, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = errors.New("no workspace folder is open")
	}
	return nil, nil, fmt.Errorf("symbol %q: %w", req.Symbol, firstErr)
}

// readable reports whether path can be read as a document (used for
// diffs of anchors whose files may be gone).
func readable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
