package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// Commands are the workspace/executeCommand commands (docs/commands.md).
var Commands = []string{
	"gloss.remember", "gloss.memoriesAt", "gloss.memoriesForSymbol", "gloss.search", "gloss.show",
	"gloss.update", "gloss.verify", "gloss.forget", "gloss.check", "gloss.list", "gloss.showMemories", "gloss.status",
	"gloss.index",
}

// DraftText is the body (and title) of a memory remembered without text.
const DraftText = "TODO: describe"

// memoriesResult is the result of commands returning memories.
type memoriesResult struct {
	Memories []memory.View `json:"memories"`
}

// searchResult is the result of gloss.search: Scores[i] is the BM25 score
// of Memories[i].
type searchResult struct {
	Memories []memory.View `json:"memories"`
	Scores   []float64     `json:"scores"`
}

// CheckResult is the result of gloss.check.
type CheckResult struct {
	// Memories are all memories with their current statuses.
	Memories []memory.View `json:"memories"`
	// Stale counts stale memories; Resolved anchors re-resolved.
	Stale    int `json:"stale"`
	Resolved int `json:"resolved"`
	// ChangedFiles lists the workspace-relative files indexing found
	// added, modified or removed.
	ChangedFiles []string `json:"changed_files"`
	// ElapsedMS is the wall time in milliseconds.
	ElapsedMS float64 `json:"elapsed_ms"`
}

// IndexResult is one workspace folder's entry in the result of
// gloss.index: its root, project id and index.Stats.
type IndexResult struct {
	Root      string `json:"root"`
	ProjectID string `json:"project_id"`
	index.Stats
	// ElapsedMS is Stats.Elapsed in milliseconds.
	ElapsedMS float64 `json:"elapsed_ms"`
}

// IndexResultOf returns the IndexResult of an indexing run st of w.
func IndexResultOf(w *memory.Workspace, st index.Stats) IndexResult {
	return IndexResult{Root: w.Root, ProjectID: w.ID, Stats: st, ElapsedMS: float64(st.Elapsed.Microseconds()) / 1000}
}

// CheckResultOf returns the gloss.check result of the checks of one or
// more workspace folders: all their memories ordered by place
// (memory.SortByPlace), the stale ones counted, re-resolved anchors and
// changed files summed, and the elapsed times added.
func CheckResultOf(results ...memory.CheckResult) CheckResult {
	out := CheckResult{ChangedFiles: []string{}}
	var all []*memory.Memory
	for _, res := range results {
		all = append(all, res.Memories...)
		out.Resolved += res.Resolved
		out.ChangedFiles = append(out.ChangedFiles, res.Index.Changed...)
		out.ElapsedMS += float64(res.Elapsed.Microseconds()) / 1000
	}
	memory.SortByPlace(all)
	for _, m := range all {
		if m.Stale() {
			out.Stale++
		}
	}
	out.Memories = memory.Views(all)
	return out
}

// StatusResult is the result of gloss.status: totals over the session's
// workspace folders, and each folder's memory.Status.
type StatusResult struct {
	Memories   int             `json:"memories"`
	Stale      int             `json:"stale"`
	Files      int             `json:"files"`
	Symbols    int             `json:"symbols"`
	Workspaces []memory.Status `json:"workspaces"`
}

// showResult is the result of gloss.show.
type showResult struct {
	memory.View
	// Diff is a unified diff of each stale anchor's code as written
	// against now (also given when asked with "diff": true).
	Diff string `json:"diff,omitempty"`
	// File is the memory's Markdown file, when it has one.
	File string `json:"file,omitempty"`
}

type locationArg struct {
	URI   string `json:"uri"`
	Range *Range `json:"range"`
}

// place is a validated location argument.
type place struct {
	f       *folder
	uri     string
	path    string
	content []byte // open document text, or nil for the file on disk
	first   int    // 1-based inclusive lines
	last    int
}

// commandArg decodes the single argument object of a command. Commands that
// take {} accept a missing argument.
func commandArg(p executeCommandParams, v any, optional bool) error {
	if len(p.Arguments) == 0 {
		if optional {
			return nil
		}
		return invalidParams("%s needs one argument object", p.Command)
	}
	raw := bytes.TrimSpace(p.Arguments[0])
	if len(raw) == 0 || raw[0] != '{' {
		return invalidParams("%s: the argument must be a JSON object, got %s", p.Command, truncate(string(raw), 40))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("%s: bad argument: %v", p.Command, err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// place validates a {uri, range} argument against the document (open
// text, else the file on disk).
func (s *Server) place(cmd string, a locationArg) (*place, error) {
	if a.URI == "" {
		return nil, invalidParams("%s: missing \"uri\"", cmd)
	}
	if a.Range == nil {
		return nil, invalidParams("%s: missing \"range\"", cmd)
	}
	sn := s.snapshot(a.URI)
	if sn.err != nil {
		return nil, invalidParams("%s: %v", cmd, sn.err)
	}
	if err := sn.load(); err != nil {
		return nil, invalidParams("%s: %v", cmd, err)
	}
	r := *a.Range
	if r.Start.Line < 0 || r.Start.Character < 0 || r.End.Line < 0 || r.End.Character < 0 {
		return nil, invalidParams("%s: malformed range: negative position", cmd)
	}
	if r.End.Line < r.Start.Line || (r.End.Line == r.Start.Line && r.End.Character < r.Start.Character) {
		return nil, invalidParams("%s: malformed range: end %d:%d is before start %d:%d", cmd, r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	n := sn.t.lines.Count()
	if r.Start.Line >= n || r.End.Line > n || (r.End.Line == n && r.End.Character > 0) {
		return nil, invalidParams("%s: range %d:%d-%d:%d is out of bounds: %s has %d lines", cmd, r.Start.Line, r.Start.Character, r.End.Line, r.End.Character, sn.rel, n)
	}
	last := r.End.Line
	if r.End.Character == 0 && r.End.Line > r.Start.Line {
		last-- // the range ends at the start of a line
	}
	pl := &place{f: sn.f, uri: a.URI, path: sn.path, first: r.Start.Line + 1, last: last + 1}
	if sn.open {
		pl.content = sn.t.src
	}
	return pl, nil
}

// findMemory returns the folder holding memory id and the memory.
func (s *Server) findMemory(cmd, id string) (*folder, *memory.Memory, error) {
	if strings.TrimSpace(id) == "" {
		return nil, nil, invalidParams("%s: missing \"id\"", cmd)
	}
	var firstErr error
	for _, f := range s.allFolders() {
		m, err := f.w.Get(id)
		if err == nil {
			return f, m, nil
		}
		if !errors.Is(err, memory.ErrNotFound) && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, nil, invalidParams("%s: %v", cmd, firstErr)
	}
	return nil, nil, invalidParams("%s: no memory %q", cmd, id)
}

// memoryArg decodes a command's {"id"} argument and finds that memory.
func (s *Server) memoryArg(p executeCommandParams) (*folder, *memory.Memory, error) {
	var a struct {
		ID string `json:"id"`
	}
	if err := commandArg(p, &a, false); err != nil {
		return nil, nil, err
	}
	return s.findMemory(p.Command, a.ID)
}

// mutated records a store change by a command: later requests see it at
// once; diagnostics and lenses are republished in the background.
func (s *Server) mutated(f *folder) {
	s.gen.Add(1)
	s.goBG(func() { s.changed(f, nil, true) })
	s.pool.changed(f.root, s)
}

func (s *Server) executeCommand(ctx context.Context, p executeCommandParams) (any, error) {
	switch p.Command {
	case "gloss.remember":
		var a struct {
			locationArg
			Text   string   `json:"text"`
			Type   string   `json:"type"`
			Title  string   `json:"title"`
			Tags   []string `json:"tags"`
			Scope  string   `json:"scope"`
			Symbol string   `json:"symbol"`
			Source string   `json:"source"`
		}
		if err := commandArg(p, &a, false); err != nil {
			return nil, err
		}
		if a.Symbol != "" {
			return s.rememberSymbol(ctx, p.Command, a.Symbol, memory.RememberRequest{
				Text: a.Text, Title: a.Title, Type: a.Type, Tags: a.Tags, Scope: a.Scope, Source: a.Source, Symbol: a.Symbol,
			})
		}
		pl, err := s.place(p.Command, a.locationArg)
		if err != nil {
			return nil, err
		}
		draft := strings.TrimSpace(a.Text) == ""
		if draft {
			a.Text = DraftText
			if strings.TrimSpace(a.Title) == "" {
				a.Title = DraftText
			}
			// A draft is written in its Markdown file, which only project
			// memories have: clients that cannot prompt for text open it.
			if a.Scope == "" {
				a.Scope = memory.ScopeProject
			}
		}
		if n := len([]rune(strings.TrimSpace(a.Title))); n > memory.MaxTitle {
			a.Title = memory.DeriveTitle(a.Title)
		}
		m, err := pl.f.w.Remember(ctx, memory.RememberRequest{
			Text: a.Text, Title: a.Title, Type: a.Type, Tags: a.Tags, Scope: a.Scope, Source: a.Source,
			Path: pl.path, StartLine: pl.first, EndLine: pl.last, Content: pl.content,
		})
		if err != nil {
			return nil, invalidParams("%s: %v", p.Command, err)
		}
		if draft {
			s.showDraft(pl.f, m)
		}
		s.mutated(pl.f)
		return memory.ViewOf(m), nil

	case "gloss.memoriesAt", "gloss.showMemories":
		var a locationArg
		if err := commandArg(p, &a, false); err != nil {
			return nil, err
		}
		if a.Range == nil && a.URI != "" {
			// No range: the whole document.
			sn := s.snapshot(a.URI)
			if sn.err == nil && sn.load() == nil {
				a.Range = &Range{End: Position{Line: sn.t.lines.Count()}}
			}
		}
		pl, err := s.place(p.Command, a)
		if err != nil {
			return nil, err
		}
		sn := s.snapshot(a.URI) // the same text place validated against
		jsonrpc2.Async(ctx)
		r := s.resolve(sn)
		if r.err != nil {
			return nil, invalidParams("%s: %v", p.Command, r.err)
		}
		var ms []*memory.Memory
		for _, h := range covering(r.mems, sn.rel, pl.first-1, pl.last-1) {
			ms = append(ms, h.m)
		}
		return memoriesResult{memory.Views(ms)}, nil

	case "gloss.memoriesForSymbol":
		var a struct {
			Symbol string `json:"symbol"`
		}
		if err := commandArg(p, &a, false); err != nil {
			return nil, err
		}
		if strings.TrimSpace(a.Symbol) == "" {
			return nil, invalidParams("%s: missing \"symbol\"", p.Command)
		}
		jsonrpc2.Async(ctx)
		var ms []*memory.Memory
		for _, f := range s.allFolders() {
			all, err := f.w.List()
			if err != nil {
				return nil, err
			}
			for _, m := range all {
				for _, an := range m.Anchors {
					if an.Symbol == a.Symbol {
						ms = append(ms, m)
						break
					}
				}
			}
		}
		return memoriesResult{memory.Views(ms)}, nil

	case "gloss.search":
		var a struct {
			Query string `json:"query"`
			Limit int    `json:"limit"`
		}
		if err := commandArg(p, &a, false); err != nil {
			return nil, err
		}
		if strings.TrimSpace(a.Query) == "" {
			return nil, invalidParams("%s: empty \"query\"", p.Command)
		}
		if a.Limit < 0 {
			return nil, invalidParams("%s: negative \"limit\"", p.Command)
		}
		if a.Limit == 0 {
			a.Limit = 20
		}
		jsonrpc2.Async(ctx)
		var hits []memory.SearchHit
		for _, f := range s.allFolders() {
			h, err := f.w.Search(ctx, a.Query, a.Limit)
			if err != nil {
				return nil, err
			}
			hits = append(hits, h...)
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
		if len(hits) > a.Limit {
			hits = hits[:a.Limit]
		}
		ms := make([]*memory.Memory, len(hits))
		scores := make([]float64, len(hits))
		for i, h := range hits {
			ms[i], scores[i] = h.Memory, h.Score
		}
		return searchResult{memory.Views(ms), scores}, nil

	case "gloss.show":
		var a struct {
			ID   string `json:"id"`
			Diff bool   `json:"diff"`
			Edit bool   `json:"edit"`
		}
		if err := commandArg(p, &a, false); err != nil {
			return nil, err
		}
		f, m, err := s.findMemory(p.Command, a.ID)
		if err != nil {
			return nil, err
		}
		jsonrpc2.Async(ctx)
		m = s.current(f, m)
		res := showResult{View: memory.ViewOf(m)}
		for _, an := range m.Anchors {
			if memory.IsStale(an.Status) || a.Diff {
				sn := s.snapshot(pathToURI(filepath.Join(f.root, filepath.FromSlash(an.Path))))
				var t *text
				if sn.load() == nil {
					t = sn.t
				}
				res.Diff += anchorDiff(an, t, 0)
			}
		}
		if file := memoryFilePath(f.w, m); file != "" {
			if _, err := os.Stat(file); err == nil {
				res.File = file
				if a.Edit {
					s.showDocument(pathToURI(file))
				}
			}
		}
		return res, nil

	case "gloss.update":
		var a struct {
			ID    string    `json:"id"`
			Text  *string   `json:"text"`
			Title *string   `json:"title"`
			Type  *string   `json:"type"`
			Tags  *[]string `json:"tags"`
			URI   string    `json:"uri"`
			Range *Range    `json:"range"`
		}
		if err := commandArg(p, &a, false); err != nil {
			return nil, err
		}
		f, m, err := s.findMemory(p.Command, a.ID)
		if err != nil {
			return nil, err
		}
		req := memory.UpdateRequest{Text: a.Text, Title: a.Title, Type: a.Type, Tags: a.Tags}
		if a.URI != "" || a.Range != nil {
			pl, err := s.place(p.Command, locationArg{URI: a.URI, Range: a.Range})
			if err != nil {
				return nil, err
			}
			if pl.f != f {
				return nil, invalidParams("%s: %s is in another workspace folder than memory %s", p.Command, a.URI, m.ID)
			}
			req.Path, req.StartLine, req.EndLine, req.Content = pl.path, pl.first, pl.last, pl.content
		}
		m, err = f.w.Update(ctx, m.ID, req)
		if err != nil {
			return nil, invalidParams("%s: %v", p.Command, err)
		}
		s.mutated(f)
		return memory.ViewOf(m), nil

	case "gloss.verify":
		f, m, err := s.memoryArg(p)
		if err != nil {
			return nil, err
		}
		m, err = f.w.Verify(ctx, m.ID)
		if err != nil {
			return nil, invalidParams("%s: %v", p.Command, err)
		}
		s.mutated(f)
		return memory.ViewOf(m), nil

	case "gloss.forget":
		f, m, err := s.memoryArg(p)
		if err != nil {
			return nil, err
		}
		m, err = f.w.Forget(m.ID)
		if err != nil {
			return nil, invalidParams("%s: %v", p.Command, err)
		}
		s.mutated(f)
		return map[string]string{"forgotten": m.ID, "title": m.Title}, nil

	case "gloss.check":
		var a struct{}
		if err := commandArg(p, &a, true); err != nil {
			return nil, err
		}
		jsonrpc2.Async(ctx)
		var results []memory.CheckResult
		for _, f := range s.allFolders() {
			res, err := f.w.Check(ctx)
			if err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "check %s: %v", f.root, err)
			}
			s.gen.Add(1)
			s.goBG(func() { s.changed(f, res.Memories, true) })
			if res.AnchorsChanged() {
				s.pool.changed(f.root, s)
			}
			results = append(results, res)
		}
		return CheckResultOf(results...), nil

	case "gloss.index":
		var a struct{}
		if err := commandArg(p, &a, true); err != nil {
			return nil, err
		}
		jsonrpc2.Async(ctx)
		out := struct {
			Workspaces []IndexResult `json:"workspaces"`
		}{[]IndexResult{}}
		for _, f := range s.allFolders() {
			st, err := f.w.Index(ctx)
			if err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "index %s: %v", f.root, err)
			}
			out.Workspaces = append(out.Workspaces, IndexResultOf(f.w, st))
			if len(st.Changed) > 0 {
				s.scheduleCheck(f)
			}
		}
		return out, nil

	case "gloss.list":
		var a struct{}
		if err := commandArg(p, &a, true); err != nil {
			return nil, err
		}
		jsonrpc2.Async(ctx)
		var all []*memory.Memory
		for _, f := range s.allFolders() {
			ms, err := f.w.List()
			if err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "list %s: %v", f.root, err)
			}
			all = append(all, ms...)
		}
		return memoriesResult{memory.Views(all)}, nil

	case "gloss.status":
		var a struct{}
		if err := commandArg(p, &a, true); err != nil {
			return nil, err
		}
		jsonrpc2.Async(ctx)
		out := StatusResult{Workspaces: []memory.Status{}}
		for _, f := range s.allFolders() {
			st, err := f.w.Status()
			if err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "status %s: %v", f.root, err)
			}
			out.Memories += st.Memories
			out.Stale += st.Stale
			out.Files += st.Files
			out.Symbols += st.Symbols
			out.Workspaces = append(out.Workspaces, st)
		}
		return out, nil
	}
	return nil, invalidParams("unknown command %q (gloss serves %s)", p.Command, strings.Join(Commands, ", "))
}

// current returns m with the anchors in open documents re-resolved against
// their text.
func (s *Server) current(f *folder, m *memory.Memory) *memory.Memory {
	for i, a := range m.Anchors {
		uri := pathToURI(filepath.Join(f.root, filepath.FromSlash(a.Path)))
		sn := s.snapshot(uri)
		if !sn.open {
			continue
		}
		r := s.resolve(sn)
		for _, rm := range r.mems {
			if rm.ID == m.ID {
				cp := *m
				cp.Anchors = append([]memory.Anchor(nil), m.Anchors...)
				cp.Anchors[i] = rm.Anchors[i]
				m = &cp
			}
		}
	}
	return m
}

// rememberSymbol remembers req anchored to a definition named by SCIP
// symbol or unique name, in the session's folder that defines it.
func (s *Server) rememberSymbol(ctx context.Context, cmd, symbol string, req memory.RememberRequest) (any, error) {
	var firstErr error
	for _, f := range s.allFolders() {
		m, err := f.w.Remember(ctx, req)
		if err == nil {
			s.mutated(f)
			return memory.ViewOf(m), nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = errors.New("no workspace folder is open")
	}
	return nil, invalidParams("%s: symbol %q: %v", cmd, symbol, firstErr)
}
