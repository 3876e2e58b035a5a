package api

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// MemoriesAt implements Interface.
func (e *Engine) MemoriesAt(_ context.Context, a Location) (MemoriesResult, error) {
	pl, err := e.place(MemoriesAt.name, a, true)
	if err != nil {
		return MemoriesResult{}, err
	}
	mems, err := pl.w.ResolveDocument(pl.path, pl.src)
	if err != nil {
		return MemoriesResult{}, invalid("%s: %v", MemoriesAt.name, err)
	}
	var ms []*memory.Memory
	for _, h := range memory.Covering(mems, pl.rel, pl.first-1, pl.last-1) {
		ms = append(ms, h.Memory)
	}
	_ = pl.w.Annotate(ms...) // superseded_by; a store error leaves it out
	recordAccess(pl.w, ms)
	return MemoriesResult{memory.Views(ms)}, nil
}

// MemoriesForSymbol implements Interface.
func (e *Engine) MemoriesForSymbol(_ context.Context, a SymbolArgs) (MemoriesResult, error) {
	if strings.TrimSpace(a.Symbol) == "" {
		return MemoriesResult{}, invalid("%s: missing \"symbol\"", MemoriesForSymbol.name)
	}
	var ms []*memory.Memory
	for _, w := range e.Host.Workspaces() {
		found, err := w.ForSymbol(a.Symbol)
		if err != nil {
			return MemoriesResult{}, err
		}
		if len(found) == 0 && !strings.Contains(a.Symbol, " ") {
			// A name ("Conn.Close"), not a SCIP symbol (those have
			// spaces): the memories of the one definition it names, as
			// remember, why and impact take names; several is an error
			// that lists them, rather than an empty answer.
			sym, err := w.ResolveSymbol(a.Symbol)
			if ae := (*memory.AmbiguousNameError)(nil); errors.As(err, &ae) {
				return MemoriesResult{}, invalid("%s: %v", MemoriesForSymbol.name, err)
			}
			if err == nil && sym != a.Symbol {
				if found, err = w.ForSymbol(sym); err != nil {
					return MemoriesResult{}, err
				}
			}
		}
		_ = w.Annotate(found...)
		recordAccess(w, found)
		ms = append(ms, found...)
	}
	return MemoriesResult{memory.Views(ms)}, nil
}

// Search implements Interface: each workspace's fused results
// (memory.FusedSearch) merged by score (memory.Less).
func (e *Engine) Search(ctx context.Context, a SearchArgs) (SearchResult, error) {
	if strings.TrimSpace(a.Query) == "" {
		return SearchResult{}, invalid("%s: empty \"query\"", Search.name)
	}
	if a.Limit < 0 {
		return SearchResult{}, invalid("%s: negative \"limit\"", Search.name)
	}
	if a.Limit == 0 {
		a.Limit = 20
	}
	a.Limit = min(a.Limit, MaxLimit)
	if err := a.Filter.Validate(); err != nil {
		return SearchResult{}, invalid("%s: %v", Search.name, err)
	}
	if a.Kind != "" && a.Kind != memory.ResultMemory && a.Kind != memory.ResultSymbol {
		return SearchResult{}, invalid("%s: \"kind\" must be memory or symbol, not %q", Search.name, a.Kind)
	}
	var fileW *memory.Workspace
	var file string
	if a.File != "" {
		var err error
		if strings.HasPrefix(a.File, "file:") {
			if file, err = URIToPath(a.File); err != nil {
				return SearchResult{}, invalid("%s: %v", Search.name, err)
			}
		} else if file = a.File; !filepath.IsAbs(file) && len(e.Host.Workspaces()) > 0 {
			file = filepath.Join(e.Host.Workspaces()[0].Root, file) // as gloss.context does
		}
		if fileW = memory.WorkspaceFor(e.Host.Workspaces(), file); fileW == nil {
			return SearchResult{}, invalid("%s: %s is outside the workspace folders", Search.name, a.File)
		}
	}
	var all []memory.Result
	owner := map[*memory.Memory]*memory.Workspace{}
	for _, w := range e.Host.Workspaces() {
		req := memory.SearchRequest{Query: a.Query, Limit: a.Limit, Filter: a.Filter, Kind: a.Kind}
		if w == fileW {
			req.Files = []string{file}
		}
		res, err := w.FusedSearch(ctx, req)
		if err != nil {
			return SearchResult{}, err
		}
		for _, r := range res {
			if r.Memory != nil {
				owner[r.Memory] = w
			}
		}
		all = append(all, res...)
	}
	sort.SliceStable(all, func(i, j int) bool { return memory.Less(all[i], all[j]) })
	if len(all) > a.Limit {
		all = all[:a.Limit]
	}
	for _, r := range all {
		if r.Memory != nil {
			recordAccess(owner[r.Memory], []*memory.Memory{r.Memory})
		}
	}
	return searchResult(all, a.Explain), nil
}

// searchResult shapes fused results for the wire.
func searchResult(all []memory.Result, explain bool) SearchResult {
	out := SearchResult{Memories: []memory.View{}, Scores: []float64{}, Results: make([]SearchItem, len(all))}
	for i, r := range all {
		it := SearchItem{Kind: r.Kind, Score: r.Score}
		if r.Kind == memory.ResultMemory {
			v := memory.ViewOf(r.Memory)
			it.View = &v
			out.Memories, out.Scores = append(out.Memories, v), append(out.Scores, r.Score)
		} else {
			sv := memory.SymbolViewOf(*r.Symbol)
			it.Symbol = &sv
		}
		if explain {
			ex := r.Explain
			it.Explain = &ex
		}
		out.Results[i] = it
	}
	return out
}

// Show implements Interface.
func (e *Engine) Show(_ context.Context, a ShowArgs) (ShowResult, error) {
	w, m, err := e.find(Show.name, a.ID)
	if err != nil {
		return ShowResult{}, err
	}
	m = e.current(w, m)
	_ = w.Annotate(m)
	recordAccess(w, []*memory.Memory{m})
	w.WithAccess(m)
	res := ShowResult{View: memory.ViewOf(m)}
	for _, an := range m.Anchors {
		if memory.IsStale(an.Status) || a.Diff {
			// The open document's text, else the file; nil when it is
			// gone or not a regular file (Workspace.ReadFile refuses).
			src, _, _ := e.text(w, filepath.Join(w.Root, filepath.FromSlash(an.Path)))
			res.Diff += memory.AnchorDiff(an, src, 0)
		}
	}
	if file := w.MemoryFile(m); file != "" && readable(file) {
		res.File = file
		if a.Edit {
			e.Host.ShowDocument(file)
		}
	}
	return res, nil
}

// current returns m with its anchors in open documents re-resolved
// against their text.
func (e *Engine) current(w *memory.Workspace, m *memory.Memory) *memory.Memory {
	for i, a := range m.Anchors {
		path := filepath.Join(w.Root, filepath.FromSlash(a.Path))
		src, ok := e.Host.Document(path)
		if !ok {
			continue
		}
		mems, err := w.ResolveDocument(path, src)
		if err != nil {
			continue
		}
		for _, rm := range mems {
			if rm.ID == m.ID && i < len(rm.Anchors) {
				cp := *m
				cp.Anchors = append([]memory.Anchor(nil), m.Anchors...)
				cp.Anchors[i] = rm.Anchors[i]
				m = &cp
			}
		}
	}
	return m
}

// Update implements Interface.
func (e *Engine) Update(ctx context.Context, a UpdateArgs) (memory.View, error) {
	w, m, err := e.find(Update.name, a.ID)
	if err != nil {
		return memory.View{}, err
	}
	req := memory.UpdateRequest{Text: a.Text, Title: a.Title, Type: a.Type, Tags: a.Tags}
	if a.URI != "" || a.Range != nil {
		pl, err := e.place(Update.name, Location{URI: a.URI, Range: a.Range}, false)
		if err != nil {
			return memory.View{}, err
		}
		if pl.w != w {
			return memory.View{}, invalid("%s: %s is in another workspace folder than memory %s", Update.name, a.URI, m.ID)
		}
		req.Path, req.StartLine, req.EndLine = pl.path, pl.first, pl.last
		if pl.open {
			req.Content = pl.src
		}
	}
	m, err = w.Update(ctx, m.ID, req)
	if err != nil {
		return memory.View{}, invalid("%s: %v", Update.name, err)
	}
	e.Host.Changed(w, nil, true)
	return memory.ViewOf(m), nil
}

// Verify implements Interface.
func (e *Engine) Verify(ctx context.Context, a IDArgs) (memory.View, error) {
	w, m, err := e.find(Verify.name, a.ID)
	if err != nil {
		return memory.View{}, err
	}
	// The open documents' text, not the files on disk: the user verifies
	// what they see (saving it must not make the memory stale again).
	docs := map[string][]byte{}
	for _, an := range m.Anchors {
		path := filepath.Join(w.Root, filepath.FromSlash(an.Path))
		if src, ok := e.Host.Document(path); ok {
			docs[path] = src
		}
	}
	m, err = w.VerifyDocuments(ctx, m.ID, docs) // indexes first
	if err != nil {
		return memory.View{}, invalid("%s: %v", Verify.name, err)
	}
	e.Host.Changed(w, nil, true)
	return memory.ViewOf(m), nil
}

// Forget implements Interface.
func (e *Engine) Forget(_ context.Context, a IDArgs) (ForgetResult, error) {
	w, m, err := e.find(Forget.name, a.ID)
	if err != nil {
		return ForgetResult{}, err
	}
	m, err = w.Forget(m.ID)
	if err != nil {
		return ForgetResult{}, invalid("%s: %v", Forget.name, err)
	}
	e.Host.Changed(w, nil, true)
	return ForgetResult{Forgotten: m.ID, Title: m.Title}, nil
}

// Restore implements Interface: the first workspace folder with a
// restorable tombstone of the id restores it.
func (e *Engine) Restore(_ context.Context, a IDArgs) (memory.View, error) {
	if strings.TrimSpace(a.ID) == "" {
		return memory.View{}, invalid("%s: missing \"id\"", Restore.name)
	}
	var firstErr error
	for _, w := range e.Host.Workspaces() {
		m, err := w.Restore(a.ID)
		if err == nil {
			e.Host.Changed(w, nil, true)
			return memory.ViewOf(m), nil
		}
		if firstErr == nil || errors.Is(firstErr, memory.ErrNotForgotten) {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("%w: %s", memory.ErrNotForgotten, a.ID)
	}
	return memory.View{}, invalid("%s: %v", Restore.name, firstErr)
}

// Check implements Interface.
func (e *Engine) Check(ctx context.Context, _ NoArgs) (CheckResult, error) {
	var results []memory.CheckResult
	for _, w := range e.Host.Workspaces() {
		res, err := w.CheckViews(ctx)
		if err != nil {
			return CheckResult{}, &Error{Code: CodeInternalError, Message: "check " + w.Root + ": " + err.Error()}
		}
		e.Host.Changed(w, nil, res.AnchorsChanged()) // nil: the host lists what it needs
		results = append(results, res)
	}
	return CheckResultOf(results...), nil
}

// CheckEach is Check for a caller that prints each memory as it is
// decoded (`gloss check` without a daemon): with one workspace it calls
// fn with every memory, in place order, as memory.SummarySet.Each
// decodes it (the view is valid only during the call; fn's first error
// stops it and is returned), so the result's memories are never all
// decoded at once. The result is Check's without Memories (nil);
// Stale and StaleImported count the memories fn was given, and the int
// is their number. With several workspaces it is Check, then fn on each
// of its memories. ElapsedMS ends before the first memory is decoded.
func (e *Engine) CheckEach(ctx context.Context, fn func(*memory.View) error) (CheckResult, int, error) {
	ws := e.Host.Workspaces()
	if len(ws) != 1 {
		res, err := e.Check(ctx, NoArgs{})
		if err != nil {
			return res, 0, err
		}
		for i := range res.Memories {
			if err := fn(&res.Memories[i]); err != nil {
				return res, 0, err
			}
		}
		n := len(res.Memories)
		res.Memories = nil
		return res, n, nil
	}
	w := ws[0]
	res, err := w.CheckSummaries(ctx)
	if err != nil {
		return CheckResult{}, 0, &Error{Code: CodeInternalError, Message: "check " + w.Root + ": " + err.Error()}
	}
	e.Host.Changed(w, nil, res.AnchorsChanged())
	set := res.Summaries
	// Memories are the re-resolved memories, which the summaries include.
	res.Summaries, res.Memories = nil, nil
	out := CheckResultOf(res)
	out.Memories, out.Stale, out.StaleImported = nil, 0, 0
	n := set.Len()
	err = set.Each(func(v *memory.View) error {
		if v.Stale {
			out.Stale++
			if v.Source == memory.SourceImportedGit {
				out.StaleImported++
			}
		}
		return fn(v)
	})
	return out, n, err
}

// CheckResultOf returns the gloss.check result of the checks of one or
// more workspaces: all their memories ordered by place
// (memory.SortByPlace), the stale ones counted, re-resolved anchors and
// changed files summed, and the elapsed times added.
func CheckResultOf(results ...memory.CheckResult) CheckResult {
	out := CheckResult{ChangedFiles: []string{}}
	var all []*memory.Memory
	var views []memory.View
	for _, res := range results {
		if res.Views != nil {
			if views == nil {
				views = res.Views[:len(res.Views):len(res.Views)] // one workspace: no copy
			} else {
				views = append(views, res.Views...)
			}
		} else {
			all = append(all, res.Memories...)
		}
		out.Resolved += res.Resolved
		out.ChangedFiles = append(out.ChangedFiles, res.Index.Changed...)
		out.ElapsedMS += float64(res.Elapsed.Microseconds()) / 1000
		out.Problems = append(out.Problems, res.Files.Problems...)
	}
	memory.SortByPlace(all)
	if len(all) == 0 && len(results) == 1 && views != nil {
		out.Memories = views // already ordered (memory.Summaries)
	} else {
		out.Memories = append(memory.Views(all), views...)
		if len(all) > 0 && len(views) > 0 {
			memory.SortViewsByPlace(out.Memories)
		}
	}
	for i := range out.Memories {
		if v := &out.Memories[i]; v.Stale {
			out.Stale++
			if v.Source == memory.SourceImportedGit {
				out.StaleImported++
			}
		}
	}
	return out
}

// List implements Interface. Without a limit or cursor each workspace's
// memories are read from their stored summaries when those are current
// (memory.Workspace.ListViews: 100,000 memories decoded from their
// records took seconds and hundreds of MB), else from the records; a page
// (Limit, Cursor) is read by memory.Workspace.ListPage, which decodes the
// summaries one at a time and stops after the page. The views of all
// workspaces are then put in place order (memory.ComparePlace) and cut
// at Limit. Bad arguments (a negative limit, an unknown type, a cursor
// List did not give) are CodeInvalidParams errors.
func (e *Engine) List(_ context.Context, a ListArgs) (ListResult, error) {
	if err := a.Validate(); err != nil {
		return ListResult{}, err
	}
	after, _ := memory.ParseListCursor(a.Cursor) // valid: Validate
	var keep func(*memory.View) bool
	if a.Type != "" || a.Stale {
		keep = a.Keeps
	}
	var all []memory.View
	more := false
	ws := e.Host.Workspaces()
	for _, w := range ws {
		var views []memory.View
		var m bool
		var err error
		if a.Limit == 0 && after == nil {
			views, err = listAll(w, keep)
		} else {
			views, m, err = w.ListPage(after, keep, a.Limit)
		}
		if err != nil {
			return ListResult{}, &Error{Code: CodeInternalError, Message: "list " + w.Root + ": " + err.Error()}
		}
		all, more = append(all, views...), more || m
	}
	if len(ws) > 1 {
		memory.SortViewsByPlace(all)
		if a.Limit > 0 && len(all) > a.Limit {
			all, more = all[:a.Limit], true
		}
	}
	if all == nil {
		all = []memory.View{}
	}
	res := ListResult{Memories: all}
	if more && len(all) > 0 {
		res.NextCursor = memory.CursorOf(&all[len(all)-1]).Encode()
	}
	return res, nil
}

// listAll returns every memory of w that keep accepts (nil: all) in
// place order, from the stored summaries when they are current, else
// from the records.
func listAll(w *memory.Workspace, keep func(*memory.View) bool) ([]memory.View, error) {
	views, ok, err := w.ListViews()
	if err == nil && !ok {
		views, err = w.RecordViews()
	}
	if err != nil || keep == nil {
		return views, err
	}
	return slices.DeleteFunc(views, func(v memory.View) bool { return !keep(&v) }), nil
}

// ListEach is List for a caller that prints each memory as it is decoded
// (`gloss list` without a daemon): with one workspace whose stored
// summaries are current it is memory.Workspace.ListEach, which calls fn
// with every memory in place order as its summary is decoded, so the
// memories are never all decoded at once (the view is valid only during
// the call; fn's first error stops it and is returned). Otherwise it is
// List, then fn on each memory. It returns the number of memories.
func (e *Engine) ListEach(ctx context.Context, fn func(*memory.View) error) (int, error) {
	if ws := e.Host.Workspaces(); len(ws) == 1 {
		n, ok, err := ws[0].ListEach(fn)
		if !ok && err != nil {
			return 0, &Error{Code: CodeInternalError, Message: "list " + ws[0].Root + ": " + err.Error()}
		}
		if ok {
			return n, err
		}
	}
	res, err := e.List(ctx, ListArgs{})
	if err != nil {
		return 0, err
	}
	for i := range res.Memories {
		if err := fn(&res.Memories[i]); err != nil {
			return i, err
		}
	}
	return len(res.Memories), nil
}

// Status implements Interface.
func (e *Engine) Status(_ context.Context, _ NoArgs) (StatusResult, error) {
	out := StatusResult{Workspaces: []memory.Status{}}
	for _, w := range e.Host.Workspaces() {
		st, err := w.Status()
		if err != nil {
			return out, &Error{Code: CodeInternalError, Message: "status " + w.Root + ": " + err.Error()}
		}
		out.Memories += st.Memories
		out.Stale += st.Stale
		out.Files += st.Files
		out.Symbols += st.Symbols
		out.Workspaces = append(out.Workspaces, st)
	}
	return out, nil
}

// Index implements Interface. It reports the files parsed of those to
// parse of each workspace to e.Progress, and the progress of a
// re-embedding the run does (retraining, a changed embedder) to
// e.Reembed, when set.
func (e *Engine) Index(ctx context.Context, _ NoArgs) (IndexResults, error) {
	out := IndexResults{Workspaces: []IndexResult{}}
	// Bulk: a first index is written once, at the end (index.RunOptions).
	o := index.RunOptions{Progress: e.Progress, Bulk: true} // Progress: files parsed of those to parse
	for _, w := range e.Host.Workspaces() {
		unwatch := func() {}
		if e.Reembed != nil {
			unwatch = w.WatchReembed(e.Reembed)
		}
		st, err := w.IndexWith(ctx, o)
		unwatch()
		var vp *VectorsPending
		if pe := (*memory.VectorsPendingError)(nil); errors.As(err, &pe) {
			vp, err = &VectorsPending{Model: pe.Model, Pending: pe.Pending, Total: pe.Total, Error: pe.Err.Error()}, nil
		}
		if err != nil {
			return out, &Error{Code: CodeInternalError, Message: "index " + w.Root + ": " + err.Error()}
		}
		sync, err := w.SyncMemoryFiles(ctx)
		if err != nil {
			return out, &Error{Code: CodeInternalError, Message: "memory files of " + w.Root + ": " + err.Error()}
		}
		out.Workspaces = append(out.Workspaces, IndexResult{Root: w.Root, ProjectID: w.ID, Stats: st, ElapsedMS: float64(st.Elapsed.Microseconds()) / 1000, MemoryFiles: sync, VectorsPending: vp})
		e.Host.Indexed(w, st)
		if sync.Changed() {
			e.Host.Changed(w, nil, true)
		}
	}
	return out, nil
}

// Impact implements Interface: the first workspace that defines the
// symbol answers.
func (e *Engine) Impact(_ context.Context, a ImpactArgs) (ImpactResult, error) {
	if strings.TrimSpace(a.Symbol) == "" {
		return ImpactResult{}, invalid("%s: missing \"symbol\"", Impact.name)
	}
	if a.Depth < 0 || a.Depth > 5 {
		return ImpactResult{}, invalid("%s: depth %d is out of range (1 to 5)", Impact.name, a.Depth)
	}
	var firstErr error
	for _, w := range e.Host.Workspaces() {
		im, err := w.Impact(a.Symbol, max(a.Depth, 1))
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		_ = w.Annotate(im.Memories...)
		return ImpactResult{Symbol: im.Symbol, Definitions: im.Definitions, Memories: memory.Views(im.Memories)}, nil
	}
	return ImpactResult{}, invalid("%s: %v", Impact.name, firstErr)
}

// Context implements Interface: every workspace's items merged by score,
// then packed (memory.Briefing).
func (e *Engine) Context(ctx context.Context, a ContextArgs) (ContextResult, error) {
	if strings.TrimSpace(a.Task) == "" && len(a.Files) == 0 && len(a.Symbols) == 0 {
		return ContextResult{}, invalid("%s: give a \"task\", \"files\" or \"symbols\"", Context.name)
	}
	if a.Budget < 0 || a.Budget > 100000 {
		return ContextResult{}, invalid("%s: budget %d is out of range (0 to 100000 tokens)", Context.name, a.Budget)
	}
	var items []memory.ContextItem
	owner := map[*memory.Memory]*memory.Workspace{}
	var firstErr error
	answered := 0
	for _, w := range e.Host.Workspaces() {
		req := memory.ContextRequest{Task: a.Task, Budget: a.Budget}
		for _, f := range a.Files {
			if strings.HasPrefix(f, "file:") {
				p, err := URIToPath(f)
				if err != nil {
					return ContextResult{}, invalid("%s: %v", Context.name, err)
				}
				f = p
			} else if !filepath.IsAbs(f) {
				f = filepath.Join(w.Root, f)
			}
			if memory.WorkspaceFor([]*memory.Workspace{w}, f) != nil {
				req.Files = append(req.Files, f)
			} else if len(e.Host.Workspaces()) == 1 {
				return ContextResult{}, invalid("%s: %s is outside the workspace %s", Context.name, f, w.Root)
			}
		}
		req.Symbols = a.Symbols
		got, err := w.Context(ctx, req)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue // a symbol another workspace defines
		}
		answered++
		for _, it := range got {
			owner[it.Memory] = w
		}
		items = append(items, got...)
	}
	if answered == 0 && firstErr != nil {
		return ContextResult{}, invalid("%s: %v", Context.name, firstErr)
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Score > items[j].Score })
	md, included, used := memory.Briefing(a.Task, items, a.Budget)
	res := ContextResult{Markdown: md, Tokens: used, Omitted: len(items) - len(included), Items: []ContextItem{}}
	for _, it := range included {
		recordAccess(owner[it.Memory], []*memory.Memory{it.Memory})
		it = it.Full() // ranked from its summary: the record is what is returned
		res.Items = append(res.Items, ContextItem{Memory: memory.ViewOf(it.Memory), Reasons: it.Reasons, Score: it.Score, Diff: it.Diff})
	}
	return res, nil
}

// SuggestAnchors implements Interface: every workspace's suggestions, in
// workspace order.
func (e *Engine) SuggestAnchors(_ context.Context, a SuggestAnchorsArgs) (SuggestAnchorsResult, error) {
	text := strings.TrimSpace(a.Title + "\n" + a.Text)
	if text == "" {
		return SuggestAnchorsResult{}, invalid("%s: empty \"text\"", SuggestAnchors.name)
	}
	out := SuggestAnchorsResult{Suggestions: []memory.AnchorSuggestion{}}
	for _, w := range e.Host.Workspaces() {
		s, err := w.SuggestAnchors(text)
		if err != nil {
			return SuggestAnchorsResult{}, err
		}
		out.Suggestions = append(out.Suggestions, s...)
	}
	return out, nil
}

// recordAccess counts a read of each of ms in w (memory.Workspace.
// RecordAccess: in memory, flushed in batches); a nil w is ignored.
func recordAccess(w *memory.Workspace, ms []*memory.Memory) {
	if w == nil || len(ms) == 0 {
		return
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	w.RecordAccess(ids...)
}
