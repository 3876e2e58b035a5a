package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gloss-dev/gloss/daemon"
	"github.com/gloss-dev/gloss/lsp"
	"github.com/gloss-dev/gloss/memory"
)

// backend is where a verb's operations run: the workspace's store opened
// directly, or the daemon that owns it (through LSP executeCommand). Both
// return the same views, so output does not depend on which ran.
type backend interface {
	Index(ctx context.Context) (lsp.IndexResult, error)
	Remember(ctx context.Context, req memory.RememberRequest) (memory.View, error)
	RememberBatch(ctx context.Context, reqs []memory.RememberRequest) ([]memory.View, []error)
	Check(ctx context.Context) (lsp.CheckResult, error)
	At(ctx context.Context, path string, first, last int) ([]memory.View, error)
	Show(ctx context.Context, id string) (memory.View, error)
	List(ctx context.Context) ([]memory.View, error)
	Verify(ctx context.Context, id string) (memory.View, error)
	Forget(ctx context.Context, id string) (memory.View, error)
	Status(ctx context.Context) (memory.Status, error)
	Search(ctx context.Context, query string, limit int) ([]memory.View, []float64, error)
	Close() error
}

// connect returns the daemon backend when a daemon serves the workspace of
// g.dir (and --no-daemon is not given), else the direct backend.
func (g *globals) connect(ctx context.Context) (backend, error) {
	if !g.noDaemon {
		root, err := memory.FindRoot(g.dir)
		if err != nil {
			return nil, err
		}
		c, err := daemon.Dial(daemon.Target{Root: root, Version: version}, daemon.VerbLSP)
		switch {
		case err == nil:
			cl := lsp.NewClient(c, lsp.ClientOptions{})
			ictx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			if err := cl.Initialize(ictx, root, false); err != nil {
				c.Close()
				return nil, fmt.Errorf("gloss daemon (pid %d): %w", c.Hello.PID, err)
			}
			return &daemonBackend{c: cl, root: root}, nil
		case errors.Is(err, daemon.ErrNotRunning):
			// Open the store directly.
		default:
			return nil, fmt.Errorf("%w (run with --no-daemon to open the store directly)", err)
		}
	}
	w, err := g.open("")
	if err != nil {
		return nil, err
	}
	return directBackend{w}, nil
}

// directBackend runs verbs on a workspace opened in this process.
type directBackend struct{ w *memory.Workspace }

func (b directBackend) Index(ctx context.Context) (lsp.IndexResult, error) {
	st, err := b.w.Index(ctx)
	if err != nil {
		return lsp.IndexResult{}, err
	}
	return lsp.IndexResultOf(b.w, st), nil
}

func (b directBackend) Remember(ctx context.Context, req memory.RememberRequest) (memory.View, error) {
	if _, err := b.w.Index(ctx); err != nil {
		return memory.View{}, err
	}
	m, err := b.w.Remember(ctx, req)
	if err != nil {
		return memory.View{}, err
	}
	return memory.ViewOf(m), nil
}

func (b directBackend) RememberBatch(ctx context.Context, reqs []memory.RememberRequest) ([]memory.View, []error) {
	out := make([]memory.View, len(reqs))
	errs := make([]error, len(reqs))
	if _, err := b.w.Index(ctx); err != nil {
		for i := range errs {
			errs[i] = err
		}
		return out, errs
	}
	ms, errs := b.w.RememberBatch(ctx, reqs)
	for i, m := range ms {
		if m != nil {
			out[i] = memory.ViewOf(m)
		}
	}
	return out, errs
}

func (b directBackend) Check(ctx context.Context) (lsp.CheckResult, error) {
	res, err := b.w.Check(ctx)
	if err != nil {
		return lsp.CheckResult{}, err
	}
	return lsp.CheckResultOf(res), nil
}

func (b directBackend) At(_ context.Context, path string, first, last int) ([]memory.View, error) {
	ms, err := b.w.At(path, first, last)
	if err != nil {
		return nil, err
	}
	memory.SortByPlace(ms)
	return memory.Views(ms), nil
}

func (b directBackend) Show(_ context.Context, id string) (memory.View, error) {
	m, err := b.w.Get(id)
	if err != nil {
		return memory.View{}, err
	}
	return memory.ViewOf(m), nil
}

func (b directBackend) List(context.Context) ([]memory.View, error) {
	ms, err := b.w.List()
	if err != nil {
		return nil, err
	}
	memory.SortByPlace(ms)
	return memory.Views(ms), nil
}

func (b directBackend) Verify(ctx context.Context, id string) (memory.View, error) {
	m, err := b.w.Verify(ctx, id)
	if err != nil {
		return memory.View{}, err
	}
	return memory.ViewOf(m), nil
}

func (b directBackend) Forget(_ context.Context, id string) (memory.View, error) {
	m, err := b.w.Forget(id)
	if err != nil {
		return memory.View{}, err
	}
	return memory.ViewOf(m), nil
}

func (b directBackend) Status(context.Context) (memory.Status, error) { return b.w.Status() }

func (b directBackend) Search(ctx context.Context, query string, limit int) ([]memory.View, []float64, error) {
	hits, err := b.w.Search(ctx, query, limit)
	if err != nil {
		return nil, nil, err
	}
	vs := make([]memory.View, len(hits))
	scores := make([]float64, len(hits))
	for i, h := range hits {
		vs[i], scores[i] = memory.ViewOf(h.Memory), h.Score
	}
	return vs, scores, nil
}

func (b directBackend) Close() error { return b.w.Close() }

// daemonBackend runs verbs in the daemon through gloss.* commands
// (docs/commands.md), as an LSP client with the workspace root as its only
// folder.
type daemonBackend struct {
	c    *lsp.Client
	root string
}

func (b *daemonBackend) Index(ctx context.Context) (lsp.IndexResult, error) {
	var res struct {
		Workspaces []lsp.IndexResult `json:"workspaces"`
	}
	if err := b.c.Execute(ctx, "gloss.index", nil, &res); err != nil {
		return lsp.IndexResult{}, err
	}
	if len(res.Workspaces) == 0 {
		return lsp.IndexResult{}, fmt.Errorf("the daemon has no workspace open for %s", b.root)
	}
	// Stats.Elapsed travels as elapsed_ns.
	return res.Workspaces[0], nil
}

// rememberArg is the gloss.remember argument for req: a symbol, or the
// file URI and the 0-based line range of req's 1-based lines.
func (b *daemonBackend) rememberArg(req memory.RememberRequest) (map[string]any, error) {
	arg := map[string]any{"text": req.Text, "type": req.Type, "title": req.Title, "tags": req.Tags, "scope": req.Scope, "source": req.Source}
	if req.Symbol != "" {
		arg["symbol"] = req.Symbol
		return arg, nil
	}
	if req.Path == "" {
		return nil, errors.New("remember needs a location (--at) or a symbol (--symbol)")
	}
	abs, err := filepath.Abs(req.Path)
	if err != nil {
		return nil, err
	}
	arg["uri"] = lsp.PathToURI(abs)
	arg["range"] = lsp.Range{Start: lsp.Position{Line: req.StartLine - 1}, End: lsp.Position{Line: req.EndLine}}
	return arg, nil
}

func (b *daemonBackend) Remember(ctx context.Context, req memory.RememberRequest) (memory.View, error) {
	arg, err := b.rememberArg(req)
	if err != nil {
		return memory.View{}, err
	}
	var v memory.View
	err = b.c.Execute(ctx, "gloss.remember", arg, &v)
	return v, err
}

func (b *daemonBackend) RememberBatch(ctx context.Context, reqs []memory.RememberRequest) ([]memory.View, []error) {
	out := make([]memory.View, len(reqs))
	errs := make([]error, len(reqs))
	for i, req := range reqs {
		out[i], errs[i] = b.Remember(ctx, req)
	}
	return out, errs
}

func (b *daemonBackend) Check(ctx context.Context) (lsp.CheckResult, error) {
	var res lsp.CheckResult
	err := b.c.Execute(ctx, "gloss.check", nil, &res)
	return res, err
}

func (b *daemonBackend) At(ctx context.Context, path string, first, last int) ([]memory.View, error) {
	if path == "" {
		return nil, errors.New("empty path") // as the engine says
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	arg := map[string]any{"uri": lsp.PathToURI(abs)}
	if first > 0 {
		arg["range"] = lsp.Range{Start: lsp.Position{Line: first - 1}, End: lsp.Position{Line: last}}
	}
	var res struct {
		Memories []memory.View `json:"memories"`
	}
	if err := b.c.Execute(ctx, "gloss.memoriesAt", arg, &res); err != nil {
		return nil, err
	}
	return res.Memories, nil
}

func (b *daemonBackend) Show(ctx context.Context, id string) (memory.View, error) {
	var v memory.View
	err := b.c.Execute(ctx, "gloss.show", map[string]any{"id": id}, &v)
	return v, err
}

func (b *daemonBackend) List(ctx context.Context) ([]memory.View, error) {
	var res struct {
		Memories []memory.View `json:"memories"`
	}
	if err := b.c.Execute(ctx, "gloss.list", nil, &res); err != nil {
		return nil, err
	}
	return res.Memories, nil
}

func (b *daemonBackend) Verify(ctx context.Context, id string) (memory.View, error) {
	var v memory.View
	err := b.c.Execute(ctx, "gloss.verify", map[string]any{"id": id}, &v)
	return v, err
}

func (b *daemonBackend) Forget(ctx context.Context, id string) (memory.View, error) {
	var res struct {
		ID    string `json:"forgotten"`
		Title string `json:"title"`
	}
	if err := b.c.Execute(ctx, "gloss.forget", map[string]any{"id": id}, &res); err != nil {
		return memory.View{}, err
	}
	return memory.View{ID: res.ID, Title: res.Title}, nil
}

func (b *daemonBackend) Status(ctx context.Context) (memory.Status, error) {
	var res lsp.StatusResult
	if err := b.c.Execute(ctx, "gloss.status", nil, &res); err != nil {
		return memory.Status{}, err
	}
	if len(res.Workspaces) == 0 {
		return memory.Status{}, fmt.Errorf("the daemon has no workspace open for %s", b.root)
	}
	return res.Workspaces[0], nil
}

func (b *daemonBackend) Search(ctx context.Context, query string, limit int) ([]memory.View, []float64, error) {
	var res struct {
		Memories []memory.View `json:"memories"`
		Scores   []float64     `json:"scores"`
	}
	if err := b.c.Execute(ctx, "gloss.search", map[string]any{"query": query, "limit": limit}, &res); err != nil {
		return nil, nil, err
	}
	if len(res.Scores) != len(res.Memories) {
		res.Scores = make([]float64, len(res.Memories))
	}
	return res.Memories, res.Scores, nil
}

func (b *daemonBackend) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return b.c.Close(ctx)
}
