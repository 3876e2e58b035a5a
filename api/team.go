package api

import (
	"context"
	"path/filepath"

	"github.com/gloss-dev/gloss/memory"
)

// ExportArgs are the arguments of gloss.export: Format is json (one
// memory record per line; the default), markdown (memory files one after
// the other) or claude-md (a briefing for an agent's instruction file);
// Scope is personal, project or "" for all.
type ExportArgs struct {
	Format string `json:"format,omitempty"`
	Scope  string `json:"scope,omitempty"`
}

// ExportResult is the result of gloss.export: the exported text and the
// number of memories in it.
type ExportResult struct {
	Format string `json:"format"`
	Count  int    `json:"count"`
	Text   string `json:"text"`
}

// ImportArgs are the arguments of gloss.import: Path is an absolute path
// (the server reads it) to a JSON-lines file, a Markdown file of one or
// more memory files, or a directory of memory files.
type ImportArgs struct {
	Path string `json:"path"`
}

// ImportResult is the result of gloss.import (memory.ImportResult): ids
// imported, ids skipped because the store has them, and errors.
type ImportResult = memory.ImportResult

// ForgetAllArgs are the arguments of gloss.forgetAll: Yes must be true
// (the command cannot be undone); Scope is personal, project or "" for all.
type ForgetAllArgs struct {
	Scope string `json:"scope,omitempty"`
	Yes   bool   `json:"yes"`
}

// ForgetAllResult is the result of gloss.forgetAll.
type ForgetAllResult struct {
	Forgotten int `json:"forgotten"`
}

// Share implements Interface.
func (e *Engine) Share(_ context.Context, a IDArgs) (memory.View, error) {
	return e.scope(Share.name, a.ID, (*memory.Workspace).Share)
}

// Unshare implements Interface.
func (e *Engine) Unshare(_ context.Context, a IDArgs) (memory.View, error) {
	return e.scope(Unshare.name, a.ID, (*memory.Workspace).Unshare)
}

func (e *Engine) scope(cmd, id string, fn func(*memory.Workspace, string) (*memory.Memory, error)) (memory.View, error) {
	w, m, err := e.find(cmd, id)
	if err != nil {
		return memory.View{}, err
	}
	m, err = fn(w, m.ID)
	if err != nil {
		return memory.View{}, invalid("%s: %v", cmd, err)
	}
	e.Host.Changed(w, nil, true)
	return memory.ViewOf(m), nil
}

// Export implements Interface: the memories of every workspace folder.
func (e *Engine) Export(_ context.Context, a ExportArgs) (ExportResult, error) {
	if a.Format == "" {
		a.Format = memory.ExportJSON
	}
	out := ExportResult{Format: a.Format}
	for _, w := range e.Host.Workspaces() {
		text, n, err := w.Export(a.Format, a.Scope)
		if err != nil {
			return out, invalid("%s: %v", Export.name, err)
		}
		out.Text += string(text)
		out.Count += n
	}
	return out, nil
}

// Import implements Interface: into the first workspace folder.
func (e *Engine) Import(ctx context.Context, a ImportArgs) (ImportResult, error) {
	if a.Path == "" || !filepath.IsAbs(a.Path) {
		return ImportResult{}, invalid("%s: \"path\" must be an absolute path", Import.name)
	}
	ws := e.Host.Workspaces()
	if len(ws) == 0 {
		return ImportResult{}, invalid("%s: no workspace folder is open", Import.name)
	}
	res, err := ws[0].Import(ctx, a.Path)
	if err != nil {
		return res, invalid("%s: %v", Import.name, err)
	}
	if len(res.Imported) > 0 {
		e.Host.Changed(ws[0], nil, true)
	}
	return res, nil
}

// ForgetAll implements Interface.
func (e *Engine) ForgetAll(_ context.Context, a ForgetAllArgs) (ForgetAllResult, error) {
	if !a.Yes {
		return ForgetAllResult{}, invalid("%s: deleting every memory cannot be undone: pass \"yes\": true", ForgetAll.name)
	}
	var out ForgetAllResult
	for _, w := range e.Host.Workspaces() {
		n, err := w.ForgetAll(a.Scope)
		if err != nil {
			return out, invalid("%s: %v", ForgetAll.name, err)
		}
		out.Forgotten += n
		if n > 0 {
			e.Host.Changed(w, nil, true)
		}
	}
	return out, nil
}
