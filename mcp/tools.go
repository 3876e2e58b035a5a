package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// The tools' inputs and outputs. The SDK derives each tool's JSON schema
// from these structs: json tags name the properties (omitempty ones are
// optional) and jsonschema tags describe them for the model.

// RememberInput is the input of the remember tool.
type RememberInput struct {
	Text      string   `json:"text" jsonschema:"the memory in Markdown: what a future reader of this code must know (why it is so, what breaks, what to do instead); first line is the title unless title is given"`
	Path      string   `json:"path,omitempty" jsonschema:"file the memory is about, relative to the workspace root; give it with start_line/end_line, or give symbol instead"`
	StartLine int      `json:"start_line,omitempty" jsonschema:"first line (1-based) of the code the memory is about"`
	EndLine   int      `json:"end_line,omitempty" jsonschema:"last line (1-based, inclusive); defaults to start_line"`
	Symbol    string   `json:"symbol,omitempty" jsonschema:"instead of path and lines: a definition name such as ParseConfig or Server.Close (unique in the workspace) or a SCIP symbol; the memory then follows that definition. With neither path nor symbol, the memory is anchored to the one definition the text mentions, else stored workspace-level (see placement in the result)"`
	Type      string   `json:"type,omitempty" jsonschema:"one of gotcha, decision, convention, pattern, requirement, error_pattern, module_insight, workflow, dead_end, note (default note)"`
	Title     string   `json:"title,omitempty" jsonschema:"short title, at most 60 characters; default: the first line of text"`
	Tags      []string `json:"tags,omitempty" jsonschema:"free-form tags"`
	Scope     string   `json:"scope,omitempty" jsonschema:"personal (default: only in this machine's store) or project (also written to .gloss/memories/ID.md to be committed and shared)"`
	// OnDuplicate: see api.RememberArgs.OnDuplicate.
	OnDuplicate string `json:"on_duplicate,omitempty" jsonschema:"what to do when a memory with nearly the same text is already on the same code: add (default: store anyway and report it), update (merge your text into it), supersede (store yours and hide the old one), noop (store nothing), ask (store nothing and return it so you can choose); identical text is never stored twice except with add. The result's decision (ADD, UPDATE, SUPERSEDE, NOOP) says what happened and names the candidate ids"`
}

// LinesInput names lines of a file: memories_at's input.
type LinesInput struct {
	Path      string `json:"path" jsonschema:"file path relative to the workspace root"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line (1-based); omit for the whole file"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line (1-based, inclusive); defaults to start_line"`
}

// SymbolInput names a definition: memories_for_symbol's input.
type SymbolInput struct {
	Symbol string `json:"symbol" jsonschema:"a SCIP symbol, as found in the anchors of memories, or a definition name (ParseConfig, Server.Close)"`
}

// SearchInput is the input of the search tool.
type SearchInput struct {
	Query         string  `json:"query" jsonschema:"words to look for in memories (titles, bodies, tags, anchored symbols and code) and in code definitions (names, doc comments, paths)"`
	Limit         int     `json:"limit,omitempty" jsonschema:"maximum number of results to return (default 10)"`
	Kind          string  `json:"kind,omitempty" jsonschema:"memory (only memories) or symbol (only code definitions); default both"`
	Type          string  `json:"type,omitempty" jsonschema:"only memories of this type (gotcha, decision, convention, ...)"`
	Tag           string  `json:"tag,omitempty" jsonschema:"only memories with this tag"`
	Path          string  `json:"path,omitempty" jsonschema:"only results in files matching this pattern (relative to the workspace root, e.g. internal/*.go) or below this directory"`
	Symbol        string  `json:"symbol,omitempty" jsonschema:"only results on this definition (name or SCIP symbol)"`
	Stale         string  `json:"stale,omitempty" jsonschema:"include (default), exclude or only memories whose code changed since"`
	MinConfidence float64 `json:"min_confidence,omitempty" jsonschema:"only memories of at least this confidence (0..1)"`
	Superseded    string  `json:"superseded,omitempty" jsonschema:"include (default; superseded memories rank lower and carry superseded_by), exclude or only memories another memory supersedes"`
	File          string  `json:"file,omitempty" jsonschema:"the file you are working on (relative to the workspace root): memories near it in the code graph rank higher"`
	Explain       bool    `json:"explain,omitempty" jsonschema:"add each part of each score (rank and contribution per ranker, confidence, freshness)"`
}

// SuggestAnchorsInput is the input of the suggest_anchors tool.
type SuggestAnchorsInput struct {
	Text  string `json:"text" jsonschema:"the memory's text (Markdown), written or about to be"`
	Title string `json:"title,omitempty" jsonschema:"its title"`
}

// IDInput names one memory: the input of show and verify.
type IDInput struct {
	ID string `json:"id" jsonschema:"the memory id (or a unique prefix of at least 6 characters)"`
}

// ForgetInput is the input of the forget tool.
type ForgetInput struct {
	ID      string `json:"id" jsonschema:"the memory id (or a unique prefix of at least 6 characters)"`
	Confirm bool   `json:"confirm,omitempty" jsonschema:"must be true: forgetting deletes the memory for everyone using this workspace's store"`
}

// UpdateInput is the input of the update tool: omitted fields are left as
// they are.
type UpdateInput struct {
	ID        string    `json:"id" jsonschema:"the memory id (or a unique prefix of at least 6 characters)"`
	Text      *string   `json:"text,omitempty" jsonschema:"new Markdown body"`
	Title     *string   `json:"title,omitempty" jsonschema:"new title (at most 60 characters)"`
	Type      *string   `json:"type,omitempty" jsonschema:"new type"`
	Tags      *[]string `json:"tags,omitempty" jsonschema:"new tags (replaces all tags)"`
	Path      string    `json:"path,omitempty" jsonschema:"re-anchor the memory to lines of this file (relative to the workspace root), with start_line/end_line"`
	StartLine int       `json:"start_line,omitempty" jsonschema:"first line (1-based) of the new anchor"`
	EndLine   int       `json:"end_line,omitempty" jsonschema:"last line (1-based, inclusive) of the new anchor"`
}

// NoInput is the input of tools without arguments.
type NoInput struct{}

// ImpactInput is the input of the impact tool.
type ImpactInput struct {
	Symbol string `json:"symbol" jsonschema:"a definition name (ParseConfig, Server.Close) or SCIP symbol"`
	Depth  int    `json:"depth,omitempty" jsonschema:"how many call/containment edges to follow, 1 to 5 (default 1)"`
}

// ContextInput is the input of the context tool.
type ContextInput struct {
	Files   []string `json:"files,omitempty" jsonschema:"files you are about to read or edit, relative to the workspace root"`
	Symbols []string `json:"symbols,omitempty" jsonschema:"definitions you are about to change: names (ParseConfig, Server.Close) or SCIP symbols"`
	Task    string   `json:"task,omitempty" jsonschema:"what you are about to do, in a sentence; its words are searched"`
	Budget  int      `json:"budget,omitempty" jsonschema:"maximum tokens of the briefing (default 2000; a token is counted as 4 bytes)"`
}

// MemoryOutput is one memory, the result of remember, show, verify and
// update.
type MemoryOutput struct {
	Memory memory.View `json:"memory" jsonschema:"the memory: lines are 1-based and inclusive, paths relative to the workspace root; stale is true when the code it describes changed"`
	// Diff is set by show for stale memories.
	Diff string `json:"diff,omitempty" jsonschema:"unified diff of the anchored code as written against now (stale anchors)"`
	// File is the memory's Markdown file (project scope).
	File string `json:"file,omitempty" jsonschema:"the memory's Markdown file, for project-scope memories"`
}

// MemoriesOutput is a list of memories.
type MemoriesOutput struct {
	Count    int           `json:"count" jsonschema:"number of memories returned"`
	Memories []memory.View `json:"memories" jsonschema:"most relevant first; lines 1-based inclusive; stale ones describe code that has changed since"`
}

// SearchHit is one search result: a memory (its fields inline) or a code
// definition (symbol), labelled by kind.
type SearchHit struct {
	Kind string `json:"kind" jsonschema:"memory or symbol"`
	*memory.View
	Symbol  *memory.SymbolView  `json:"symbol,omitempty" jsonschema:"the code definition (kind symbol); lines 1-based inclusive"`
	Score   float64             `json:"score" jsonschema:"fused relevance: reciprocal rank fusion of full text, vectors and code graph, then scaled by confidence and lowered (×0.85) for stale memories"`
	Explain *memory.Explanation `json:"explain,omitempty" jsonschema:"the parts of the score, when asked"`
}

// SearchOutput is the result of the search tool.
type SearchOutput struct {
	Count int         `json:"count" jsonschema:"number of results returned"`
	Hits  []SearchHit `json:"hits" jsonschema:"best first; memories and code definitions mixed"`
}

// StaleMemory is a stale memory with what changed.
type StaleMemory struct {
	memory.View
	Diff string `json:"diff,omitempty" jsonschema:"unified diff of each stale anchor's code as written against now"`
}

// CheckOutput is the result of the check tool.
type CheckOutput struct {
	Memories     int           `json:"memories" jsonschema:"number of memories in the workspace"`
	StaleCount   int           `json:"stale_count" jsonschema:"number of stale memories"`
	Stale        []StaleMemory `json:"stale" jsonschema:"the stale memories with diffs of what changed; decide for each: verify, update or forget"`
	ChangedFiles []string      `json:"changed_files" jsonschema:"files found added, modified or removed since the last check"`
	Omitted      int           `json:"omitted,omitempty" jsonschema:"stale memories left out of stale (over the limit); call check again after handling these"`
}

// ForgetOutput is the result of the forget tool.
type ForgetOutput struct {
	Forgotten string `json:"forgotten" jsonschema:"id of the deleted memory"`
	Title     string `json:"title" jsonschema:"its title"`
}

// ContextOutput is the result of the context tool (api.ContextResult).
type ContextOutput struct {
	Markdown  string            `json:"markdown" jsonschema:"the briefing: memories grouped by file, each cited [gloss:ID] with its status; stale ones with a diff of what changed"`
	Memories  []api.ContextItem `json:"memories" jsonschema:"the memories of the briefing, best first, with why each is there (file, symbol, search)"`
	Tokens    int               `json:"tokens" jsonschema:"estimated tokens of the briefing"`
	Truncated bool              `json:"truncated" jsonschema:"true when memories were left out to keep within the budget"`
}

// maxStaleDiffs bounds how many stale memories check returns with diffs.
const maxStaleDiffs = 50

// defaultSearchLimit is search's limit when none is given.
const defaultSearchLimit = 10

var (
	yes = true
	no  = false
)

// readOnly, additive and destructive annotate the tools for clients.
func readOnly(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: &no}
}

func additive(title string, idempotent bool) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, DestructiveHint: &no, IdempotentHint: idempotent, OpenWorldHint: &no}
}

func destructive(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}
}

// addTool registers a tool whose handler cannot crash the server: a panic
// (a bug) becomes a tool error.
func addTool[In, Out any](s *Server, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	sdk.AddTool(s.srv, t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out Out, err error) {
		defer func() {
			if r := recover(); r != nil {
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("internal error in gloss's %s tool: %v (please report it)", t.Name, r)
			}
		}()
		return h(ctx, req, in)
	})
}

// addTools registers the tools. Each calls one api method (check also
// calls Show for its stale memories; context combines MemoriesAt and
// Search until api gains gloss.context).
func (s *Server) addTools() {
	addTool(s, &sdk.Tool{Name: "remember", Annotations: additive("Remember", false),
		Description: "Store a memory anchored to code: a note a future reader (human or agent) of this code should know — a gotcha, a decision and its reason, a convention. " +
			"Anchor it to lines (path, start_line, end_line) or to a definition (symbol); gloss follows the code as it moves and marks the memory stale when the code changes. " +
			"Call it when you learn something non-obvious about the code that is not written in it. Returns the stored memory with its id. " +
			"To avoid piling up copies, pass on_duplicate (update or supersede): a near-duplicate on the same code is then merged or replaced, and decision tells you which (ADD, UPDATE, SUPERSEDE or NOOP with the candidate ids)."},
		s.remember)
	addTool(s, &sdk.Tool{Name: "memories_at", Annotations: readOnly("Memories at lines"),
		Description: "List the memories anchored to a file, or to lines of it. Call it before reading or editing code to learn its gotchas and decisions. " +
			"Returns each memory's id, type, title, body, anchors (1-based lines) and whether it is stale (the code changed since it was written)."},
		s.memoriesAt)
	addTool(s, &sdk.Tool{Name: "memories_for_symbol", Annotations: readOnly("Memories of a symbol"),
		Description: "List the memories anchored to one definition, named by its SCIP symbol (as found in a memory's anchors or impact's definitions) or its name when unique."},
		s.memoriesForSymbol)
	addTool(s, &sdk.Tool{Name: "search", Annotations: readOnly("Search memories"),
		Description: "Search memories and code definitions, best first, each labelled kind memory or symbol (kind limits to one), optionally filtered by type, tag, path, symbol, staleness or confidence; file ranks memories near the file you work on higher. " +
			"Call it when you need what is known about a topic (\"retry\", \"auth token refresh\") rather than about a file."},
		s.search)
	addTool(s, &sdk.Tool{Name: "suggest_anchors", Annotations: readOnly("Suggest anchors for a memory"),
		Description: "List the definitions and files a memory's text mentions (identifiers such as ParseConfig or `retry_limit`, paths such as internal/db/pool.go), each with its path, 1-based lines and why, to anchor the memory to with remember's symbol or path."},
		s.suggestAnchors)
	addTool(s, &sdk.Tool{Name: "show", Annotations: readOnly("Show a memory"),
		Description: "Show one memory by id with its anchors and, when stale, a unified diff of the code as written against the code now."},
		s.show)
	addTool(s, &sdk.Tool{Name: "check", Annotations: additive("Check for stale memories", true),
		Description: "Rescan the workspace and report the memories made stale by code changes, each with a diff of what changed. " +
			"Call it after editing code; then for each stale memory call verify (it still holds), update (rewrite it) or forget (it no longer applies)."},
		s.check)
	addTool(s, &sdk.Tool{Name: "verify", Annotations: additive("Verify a memory", true),
		Description: "Mark a memory as still true for the current code: its anchors take the code as it is now and it is no longer stale. " +
			"Call it after reading a stale memory's diff and deciding the memory still holds."},
		s.verify)
	addTool(s, &sdk.Tool{Name: "update", Annotations: additive("Update a memory", true),
		Description: "Change a memory's text, title, type or tags, or re-anchor it to other lines (path, start_line, end_line). Omitted fields are kept. " +
			"Call it when a stale memory is still useful but must be rewritten for the new code."},
		s.update)
	addTool(s, &sdk.Tool{Name: "forget", Annotations: destructive("Forget a memory"),
		Description: "Delete a memory that no longer applies. Requires confirm: true; the deletion is shared with everyone using this workspace's store."},
		s.forget)
	addTool(s, &sdk.Tool{Name: "impact", Annotations: readOnly("Impact of changing a symbol"),
		Description: "Before changing a definition, list the definitions that call or contain it (transitively up to depth) and the memories anchored to any of them: " +
			"what a change may break and what is known about it."},
		s.impact)
	addTool(s, &sdk.Tool{Name: "context", Annotations: readOnly("Briefing for a task"),
		Description: "Get a briefing for a task in one call: the memories on the files and definitions you will touch and those matching the task's words, ranked and packed into a token budget, as Markdown with [gloss:ID] citations. " +
			"Call it at the start of a task, before editing."},
		s.contextTool)
	s.addImportGit()
	s.addRelationTools()
	s.addLifecycle()
}

func (s *Server) remember(ctx context.Context, _ *sdk.CallToolRequest, in RememberInput) (*sdk.CallToolResult, MemoryOutput, error) {
	if strings.TrimSpace(in.Text) == "" {
		return nil, MemoryOutput{}, errors.New(`missing "text": write what the memory says`)
	}
	args := api.RememberArgs{Text: in.Text, Type: in.Type, Title: in.Title, Tags: in.Tags, Scope: in.Scope, Symbol: in.Symbol, Source: Source}
	args.OnDuplicate = in.OnDuplicate
	switch {
	case in.Symbol != "" && in.Path != "":
		return nil, MemoryOutput{}, errors.New(`give either "symbol" or "path" with lines, not both`)
	case in.Path != "":
		if in.StartLine <= 0 {
			return nil, MemoryOutput{}, errors.New(`missing "start_line": a memory is anchored to lines of the file (1-based)`)
		}
		loc, err := s.location(in.Path, in.StartLine, in.EndLine)
		if err != nil {
			return nil, MemoryOutput{}, err
		}
		args.Location = loc
	}
	v, err := s.impl.Remember(ctx, args)
	if err != nil {
		return nil, MemoryOutput{}, toolError(err)
	}
	return nil, MemoryOutput{Memory: v}, nil
}

func (s *Server) suggestAnchors(ctx context.Context, _ *sdk.CallToolRequest, in SuggestAnchorsInput) (*sdk.CallToolResult, api.SuggestAnchorsResult, error) {
	res, err := s.impl.SuggestAnchors(ctx, api.SuggestAnchorsArgs{Text: in.Text, Title: in.Title})
	if err != nil {
		return nil, api.SuggestAnchorsResult{}, toolError(err)
	}
	return nil, res, nil
}

func (s *Server) memoriesAt(ctx context.Context, _ *sdk.CallToolRequest, in LinesInput) (*sdk.CallToolResult, MemoriesOutput, error) {
	loc, err := s.location(in.Path, in.StartLine, in.EndLine)
	if err != nil {
		return nil, MemoriesOutput{}, err
	}
	res, err := s.impl.MemoriesAt(ctx, loc)
	if err != nil {
		if p, _ := api.URIToPath(loc.URI); !exists(p) {
			return nil, MemoriesOutput{}, fmt.Errorf("no file %s in the workspace", in.Path)
		}
		return nil, MemoriesOutput{}, toolError(err)
	}
	return nil, memories(res.Memories), nil
}

func (s *Server) memoriesForSymbol(ctx context.Context, _ *sdk.CallToolRequest, in SymbolInput) (*sdk.CallToolResult, MemoriesOutput, error) {
	res, err := s.impl.MemoriesForSymbol(ctx, api.SymbolArgs{Symbol: in.Symbol})
	if err != nil {
		return nil, MemoriesOutput{}, toolError(err)
	}
	return nil, memories(res.Memories), nil
}

func (s *Server) search(ctx context.Context, _ *sdk.CallToolRequest, in SearchInput) (*sdk.CallToolResult, SearchOutput, error) {
	if in.Limit < 0 {
		return nil, SearchOutput{}, errors.New(`"limit" must be positive`)
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultSearchLimit
	}
	f := memory.Filter{Type: in.Type, Tag: in.Tag, Path: in.Path, Symbol: in.Symbol, Stale: in.Stale, MinConfidence: in.MinConfidence}
	f.Superseded = in.Superseded
	args := api.SearchArgs{Query: in.Query, Limit: limit, Filter: f, Kind: in.Kind, Explain: in.Explain}
	if in.File != "" {
		abs, err := s.resolve(in.File)
		if err != nil {
			return nil, SearchOutput{}, err
		}
		args.File = abs
	}
	res, err := s.impl.Search(ctx, args)
	if err != nil {
		return nil, SearchOutput{}, toolError(err)
	}
	out := SearchOutput{Hits: []SearchHit{}}
	for _, r := range res.Results {
		out.Hits = append(out.Hits, SearchHit{Kind: r.Kind, View: r.View, Symbol: r.Symbol, Score: r.Score, Explain: r.Explain})
	}
	out.Count = len(out.Hits)
	return nil, out, nil
}

func (s *Server) show(ctx context.Context, _ *sdk.CallToolRequest, in IDInput) (*sdk.CallToolResult, MemoryOutput, error) {
	res, err := s.impl.Show(ctx, api.ShowArgs{ID: in.ID})
	if err != nil {
		return nil, MemoryOutput{}, toolError(err)
	}
	return nil, MemoryOutput{Memory: res.View, Diff: res.Diff, File: res.File}, nil
}

func (s *Server) check(ctx context.Context, _ *sdk.CallToolRequest, _ NoInput) (*sdk.CallToolResult, CheckOutput, error) {
	res, err := s.impl.Check(ctx, api.NoArgs{})
	if err != nil {
		return nil, CheckOutput{}, toolError(err)
	}
	out := CheckOutput{Memories: len(res.Memories), StaleCount: res.Stale, Stale: []StaleMemory{}, ChangedFiles: res.ChangedFiles}
	if out.ChangedFiles == nil {
		out.ChangedFiles = []string{}
	}
	for _, v := range res.Memories {
		if !v.Stale {
			continue
		}
		if len(out.Stale) == maxStaleDiffs {
			out.Omitted++
			continue
		}
		sm := StaleMemory{View: v}
		if sh, err := s.impl.Show(ctx, api.ShowArgs{ID: v.ID}); err == nil {
			sm.View, sm.Diff = sh.View, sh.Diff
		}
		out.Stale = append(out.Stale, sm)
	}
	return nil, out, nil
}

func (s *Server) verify(ctx context.Context, _ *sdk.CallToolRequest, in IDInput) (*sdk.CallToolResult, MemoryOutput, error) {
	v, err := s.impl.Verify(ctx, api.IDArgs{ID: in.ID})
	if err != nil {
		return nil, MemoryOutput{}, toolError(err)
	}
	return nil, MemoryOutput{Memory: v}, nil
}

func (s *Server) update(ctx context.Context, _ *sdk.CallToolRequest, in UpdateInput) (*sdk.CallToolResult, MemoryOutput, error) {
	args := api.UpdateArgs{ID: in.ID, Text: in.Text, Title: in.Title, Type: in.Type, Tags: in.Tags}
	if in.Path != "" || in.StartLine != 0 || in.EndLine != 0 {
		if in.Path == "" || in.StartLine <= 0 {
			return nil, MemoryOutput{}, errors.New(`re-anchoring needs "path" and "start_line" (1-based)`)
		}
		loc, err := s.location(in.Path, in.StartLine, in.EndLine)
		if err != nil {
			return nil, MemoryOutput{}, err
		}
		args.URI, args.Range = loc.URI, loc.Range
	}
	if args.Text == nil && args.Title == nil && args.Type == nil && args.Tags == nil && args.URI == "" {
		return nil, MemoryOutput{}, errors.New("nothing to update: give text, title, type, tags, or path with lines")
	}
	v, err := s.impl.Update(ctx, args)
	if err != nil {
		return nil, MemoryOutput{}, toolError(err)
	}
	return nil, MemoryOutput{Memory: v}, nil
}

func (s *Server) forget(ctx context.Context, _ *sdk.CallToolRequest, in ForgetInput) (*sdk.CallToolResult, ForgetOutput, error) {
	if !in.Confirm {
		return nil, ForgetOutput{}, fmt.Errorf("not forgotten: forgetting deletes memory %s for everyone sharing this store; call forget again with \"confirm\": true if you are sure (or verify/update it instead)", in.ID)
	}
	res, err := s.impl.Forget(ctx, api.IDArgs{ID: in.ID})
	if err != nil {
		return nil, ForgetOutput{}, toolError(err)
	}
	return nil, ForgetOutput(res), nil
}

func (s *Server) impact(ctx context.Context, _ *sdk.CallToolRequest, in ImpactInput) (*sdk.CallToolResult, api.ImpactResult, error) {
	res, err := s.impl.Impact(ctx, api.ImpactArgs{Symbol: in.Symbol, Depth: in.Depth})
	if err != nil {
		return nil, api.ImpactResult{}, toolError(err)
	}
	if res.Definitions == nil {
		res.Definitions = []memory.Impacted{}
	}
	if res.Memories == nil {
		res.Memories = []memory.View{}
	}
	return nil, res, nil
}

// contextTool returns gloss.context's briefing (api.Context) for the
// task, files (relative to the workspace root; escapes refused) and
// symbols.
func (s *Server) contextTool(ctx context.Context, _ *sdk.CallToolRequest, in ContextInput) (*sdk.CallToolResult, ContextOutput, error) {
	if len(in.Files) == 0 && len(in.Symbols) == 0 && strings.TrimSpace(in.Task) == "" {
		return nil, ContextOutput{}, errors.New(`give "files" or "symbols" you will work on, a "task" description, or both`)
	}
	args := api.ContextArgs{Task: in.Task, Symbols: in.Symbols, Budget: in.Budget}
	for _, f := range in.Files {
		loc, err := s.location(f, 0, 0) // refuses paths out of the workspace
		if err != nil {
			return nil, ContextOutput{}, err
		}
		args.Files = append(args.Files, loc.URI)
	}
	res, err := s.impl.Context(ctx, args)
	if err != nil {
		return nil, ContextOutput{}, toolError(err)
	}
	return nil, ContextOutput{Markdown: res.Markdown, Memories: res.Items, Tokens: res.Tokens, Truncated: res.Omitted > 0}, nil
}

// memories returns the output of a list of memories.
func memories(vs []memory.View) MemoriesOutput {
	if vs == nil {
		vs = []memory.View{}
	}
	return MemoriesOutput{Count: len(vs), Memories: vs}
}
