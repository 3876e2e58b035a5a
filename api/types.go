package api

import (
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/jsonenc"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/viewjson"
)

// Position is a place in a document as LSP counts it (LSP 3.17,
// "Position"): Line is 0-based; Character is a 0-based offset in the
// line, in UTF-16 code units unless the session negotiated UTF-8.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is an LSP range: Start inclusive, End exclusive. A range whose End
// is at character 0 of a later line does not include that line.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location names lines of a document: URI is a file:// URI inside a
// workspace folder; Range is optional where a command says so (a missing
// range means the whole document).
type Location struct {
	URI   string `json:"uri"`
	Range *Range `json:"range,omitempty"`
}

// LinesRange returns the Range covering the 1-based inclusive lines
// first..last, as the CLI turns PATH:START-END into a Location.
func LinesRange(first, last int) *Range {
	if last < first {
		last = first
	}
	return &Range{Start: Position{Line: first - 1}, End: Position{Line: last}}
}

// RememberArgs are the arguments of gloss.remember. The memory is placed
// by Symbol (a SCIP symbol or a unique definition name such as "Execute",
// "Command.Execute") or by Location; not both. With neither, it is
// anchored to the one definition its title and text mention
// (gloss.suggestAnchors), else stored with no anchor (workspace-level);
// the result's "placement" says which. Empty Text makes a draft
// (text and title "TODO: describe", scope project) whose Markdown file the
// client is asked to open.
type RememberArgs struct {
	Location
	// Text is the Markdown body.
	Text string `json:"text"`
	// Type is one of memory.Types; "" means note.
	Type string `json:"type,omitempty"`
	// Title is at most fields.MaxTitle (60) characters; longer titles are
	// cut at a word; "" means the first line of Text.
	Title string   `json:"title,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	// Scope is personal (default) or project.
	Scope  string `json:"scope,omitempty"`
	Symbol string `json:"symbol,omitempty"`
	// Source is user (default), agent, imported_git, imported_file or
	// inferred.
	Source string `json:"source,omitempty"`
	// OnDuplicate is what to do when the memory is a near-duplicate of
	// one on the same anchor: add (default: store it, report the
	// duplicates), ask (store nothing, return the duplicate), update
	// (merge the text into it), supersede (store it, superseding the
	// duplicates) or noop (store nothing); identical text is never stored
	// twice except under add. The result's "decision" says what was done
	// (memory.Decide).
	OnDuplicate string `json:"on_duplicate,omitempty"`
	// Expires is when the memory expires (memory.ParseExpiry: "30d",
	// "2w", "36h", "2026-12-31" or RFC 3339); "" never.
	Expires string `json:"expires,omitempty"`
	// Pinned memories never lose confidence with age.
	Pinned bool `json:"pinned,omitempty"`
}

// RememberBatchArgs are the arguments of gloss.rememberBatch: one
// RememberArgs per memory, stored in one durable write.
type RememberBatchArgs struct {
	Items []RememberArgs `json:"items"`
}

// BatchItem is one entry of RememberBatchResult: the memory, or the error
// that kept it from being stored.
type BatchItem struct {
	Memory *memory.View `json:"memory,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// RememberBatchResult is the result of gloss.rememberBatch: Items[i]
// answers RememberBatchArgs.Items[i].
type RememberBatchResult struct {
	Items []BatchItem `json:"items"`
}

// MemoriesResult is the result of commands returning memories
// (gloss.memoriesAt, gloss.memoriesForSymbol, gloss.list). Lines in it are
// 1-based and inclusive (memory.View).
type MemoriesResult struct {
	Memories []memory.View `json:"memories"`
}

// MarshalJSON encodes r as encoding/json encodes the struct
// ({"memories":[…]}, null for a nil slice), each view written by
// viewjson.AppendCompact (json.Marshal's bytes without reflection): a list
// of 100,000 memories from a daemon or a language server spent most of
// its encoding in reflection (docs/benchmarks.md, session 20). It fails
// where encoding/json would.
func (r MemoriesResult) MarshalJSON() ([]byte, error) {
	b, err := appendMemories(make([]byte, 0, 16+len(r.Memories)*1024), r.Memories)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendMemories appends `{"memories":` and views as encoding/json
// encodes them (null for nil), each by viewjson.AppendCompact, without
// the closing brace.
func appendMemories(b []byte, views []memory.View) ([]byte, error) {
	if views == nil {
		return append(b, `{"memories":null`...), nil
	}
	b = append(b, `{"memories":[`...)
	for i := range views {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = viewjson.AppendCompact(b, &views[i]); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// ListArgs are the argument of gloss.list: every field is optional, and
// {} lists every memory. Type keeps the memories of one type
// (memory.Types), Stale the stale ones. Limit > 0 cuts the answer into
// pages of at most Limit memories; Cursor is the NextCursor of the page
// before (absent: the first page).
type ListArgs struct {
	Type   string `json:"type,omitempty"`
	Stale  bool   `json:"stale,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// Validate returns a CodeInvalidParams error for a negative limit, a
// type not in memory.Types, or a cursor List did not give; nil else.
func (a ListArgs) Validate() error {
	if a.Limit < 0 {
		return invalid("%s: limit %d: give a positive number of memories per page, or 0 for all", List.name, a.Limit)
	}
	if a.Type != "" && !slices.Contains(memory.Types, a.Type) {
		return invalid("%s: type %q: not one of %s", List.name, a.Type, strings.Join(memory.Types, ", "))
	}
	if _, err := memory.ParseListCursor(a.Cursor); err != nil {
		return invalid("%s: %v", List.name, err)
	}
	return nil
}

// Keeps reports whether v passes a's filters (Type, Stale).
func (a ListArgs) Keeps(v *memory.View) bool {
	return (!a.Stale || v.Stale) && (a.Type == "" || v.Type == a.Type)
}

// ListResult is the result of gloss.list: the memories in place order
// (memory.ComparePlace: first anchor's path and 1-based line, then id;
// memories without anchors last) and, when more follow the page,
// NextCursor, the Cursor of the next call (an opaque string). A cursor
// stays valid across writes: the next page starts after the last
// memory's place, so memories written or forgotten meanwhile shift
// nothing.
type ListResult struct {
	Memories   []memory.View `json:"memories"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// MarshalJSON encodes r as encoding/json encodes the struct, the
// memories as MemoriesResult.MarshalJSON writes them.
func (r ListResult) MarshalJSON() ([]byte, error) {
	b, err := appendMemories(make([]byte, 0, 48+len(r.Memories)*1024), r.Memories)
	if err != nil {
		return nil, err
	}
	if r.NextCursor != "" {
		b = append(b, `,"next_cursor":`...)
		b = jsonenc.AppendString(b, r.NextCursor)
	}
	return append(b, '}'), nil
}

// SymbolArgs name a definition by SCIP symbol (or, where a command says
// so, by unique name).
type SymbolArgs struct {
	Symbol string `json:"symbol" help:"a SCIP symbol or a definition name (ParseConfig, Server.Close)"`
}

// SearchArgs are the arguments of gloss.search. Limit 0 means 20; it is
// capped at MaxLimit.
type SearchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
	// Filter narrows the results (type, tag, path pattern, symbol, stale,
	// min_confidence); the limit applies after it. Code symbols pass the
	// path and symbol filters; a filter on type, tag, confidence or stale
	// "only" keeps memories alone.
	memory.Filter
	// Kind is "" (memories and code symbols), "memory" or "symbol".
	Kind string `json:"kind,omitempty"`
	// File is the file at hand (absolute path, file:// URI, or a path
	// relative to the first workspace folder's root): memories near it in
	// the symbol graph rank higher.
	File string `json:"file,omitempty"`
	// Explain adds each result's score parts (memory.Explanation).
	Explain bool `json:"explain,omitempty"`
}

// MaxLimit caps every result count a client may ask for
// (memory.MaxSearchLimit).
const MaxLimit = memory.MaxSearchLimit

// SearchResult is the result of gloss.search. Results mix memories and
// code symbols, best first (memory.FusedSearch: weighted reciprocal rank
// fusion, then confidence and freshness). Memories and Scores are the
// memory results alone, in the same order, for clients that predate
// Results: Scores[i] is the fused score of Memories[i].
type SearchResult struct {
	Memories []memory.View `json:"memories"`
	Scores   []float64     `json:"scores"`
	Results  []SearchItem  `json:"results"`
}

// SearchItem is one result of gloss.search: a memory (its memory.View
// fields inline) or a code symbol, labelled by Kind.
type SearchItem struct {
	// Kind is "memory" or "symbol".
	Kind string `json:"kind"`
	*memory.View
	Symbol *memory.SymbolView `json:"symbol,omitempty"`
	// Score is the fused score (higher is better).
	Score float64 `json:"score"`
	// Explain is set when the search asked for it.
	Explain *memory.Explanation `json:"explain,omitempty"`
}

// IDArgs name one memory by id (a unique prefix of at least 6 characters
// is accepted).
type IDArgs struct {
	ID string `json:"id"`
}

// ShowArgs are the arguments of gloss.show: Diff asks for the diff of every
// anchor (stale ones always get one); Edit asks the client to open the
// memory's Markdown file.
type ShowArgs struct {
	ID   string `json:"id"`
	Diff bool   `json:"diff,omitempty"`
	Edit bool   `json:"edit,omitempty"`
	// Present asks the language server to present the result to the user
	// itself, since clients ignore command results: the diff in a
	// message, and for Edit a message when the file cannot be opened (a
	// personal memory has none; the client cannot open documents). The
	// quick fixes send it; other doors ignore it.
	Present bool `json:"present,omitempty"`
}

// ShowResult is the result of gloss.show: the memory with its anchors
// re-resolved against open documents.
type ShowResult struct {
	memory.View
	// Diff is a unified diff of each stale anchor's code as written
	// against now (of every anchor when asked with "diff": true).
	Diff string `json:"diff,omitempty"`
	// File is the absolute path of the memory's Markdown file, when it has
	// one.
	File string `json:"file,omitempty"`
}

// UpdateArgs are the arguments of gloss.update: nil fields are left as
// they are; URI with Range re-anchors the memory to those lines.
type UpdateArgs struct {
	ID    string    `json:"id"`
	Text  *string   `json:"text,omitempty"`
	Title *string   `json:"title,omitempty"`
	Type  *string   `json:"type,omitempty"`
	Tags  *[]string `json:"tags,omitempty"`
	URI   string    `json:"uri,omitempty"`
	Range *Range    `json:"range,omitempty"`
}

// ForgetResult is the result of gloss.forget.
type ForgetResult struct {
	Forgotten string `json:"forgotten"`
	Title     string `json:"title"`
}

// NoArgs is the argument of commands that take none ({} or nothing).
type NoArgs struct{}

// CheckResult is the result of gloss.check.
type CheckResult struct {
	// Memories are all memories with their current statuses, ordered by
	// place (memory.SortByPlace).
	Memories []memory.View `json:"memories"`
	// Stale counts stale memories; Resolved counts anchors re-resolved.
	Stale    int `json:"stale"`
	Resolved int `json:"resolved"`
	// StaleImported counts the stale memories imported from git history
	// (source imported_git), included in Stale: they describe the code of
	// an older commit, so being stale is what they are expected to be,
	// and `check --exit-code` and GitHub annotations leave them out.
	StaleImported int `json:"stale_imported,omitempty"`
	// ChangedFiles lists the workspace-relative files indexing found
	// added, modified or removed.
	ChangedFiles []string `json:"changed_files"`
	// ElapsedMS is the wall time in milliseconds.
	ElapsedMS float64 `json:"elapsed_ms"`
	// Problems are memory files that could not be loaded
	// (memory.SyncMemoryFiles): broken front matter, merge conflicts, ids
	// that are not their file's name, symbolic links.
	Problems []memory.FileProblem `json:"problems,omitempty"`
}

// IndexResult is one workspace folder's entry in the result of
// gloss.index: its root, project id and index.Stats (whose Elapsed travels
// as elapsed_ns).
type IndexResult struct {
	Root      string `json:"root"`
	ProjectID string `json:"project_id"`
	index.Stats
	// ElapsedMS is Stats.Elapsed in milliseconds.
	ElapsedMS float64 `json:"elapsed_ms"`
	// MemoryFiles is what loading the memory files after indexing did
	// (memory.SyncMemoryFiles).
	MemoryFiles memory.SyncResult `json:"memory_files"`
	// VectorsPending is set when the run's re-embedding for a changed
	// remote embedder gave up on a failing server
	// (memory.ReembedForegroundGiveUp): the files and full text are up to
	// date, the vectors are not.
	VectorsPending *VectorsPending `json:"vectors_pending,omitempty"`
}

// VectorsPending describes vectors a gloss.index run could not bring up
// to date (memory.VectorsPendingError).
type VectorsPending struct {
	// Model is the new embedder's model id.
	Model string `json:"model"`
	// Pending is the number of memories not embedded with Model, of Total.
	Pending int `json:"pending"`
	Total   int `json:"total"`
	// Error is the embedder server's last failure.
	Error string `json:"error"`
}

// IndexResults is the result of gloss.index: one entry per workspace
// folder.
type IndexResults struct {
	Workspaces []IndexResult `json:"workspaces"`
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

// ImpactArgs are the arguments of gloss.impact: Symbol is a SCIP symbol or
// a unique definition name; Depth bounds how many call/containment edges
// are followed (0 means 1; at most 5).
type ImpactArgs struct {
	Symbol string `json:"symbol"`
	Depth  int    `json:"depth,omitempty"`
}

// ImpactResult is the result of gloss.impact: the definitions a change to
// Symbol may affect, found through the stored syntactic edges, and the
// memories anchored to Symbol or to any of them.
type ImpactResult struct {
	// Symbol is the SCIP symbol the name resolved to.
	Symbol string `json:"symbol"`
	// Definitions are the impacted definitions, nearest first.
	Definitions []memory.Impacted `json:"definitions"`
	// Memories are anchored to Symbol or to one of Definitions, those on
	// Symbol first.
	Memories []memory.View `json:"memories"`
}

// ContextArgs are the arguments of gloss.context: the task about to be
// done, the files (file:// URIs, absolute paths, or paths relative to the
// workspace root) and symbols (SCIP
// symbols or unique names) it touches, and the token budget of the
// briefing (0 means 2,000; at most 100,000; tokens are estimated as one
// per 4 bytes, memory.Tokens).
//
// The help tags are the flags' descriptions of the CLI verb made from
// this struct (cmd/gloss genericVerb).
type ContextArgs struct {
	Task    string   `json:"task" help:"what you are about to do, in a sentence; its words are searched"`
	Files   []string `json:"files,omitempty" help:"a file you are about to read or edit, relative to the workspace root"`
	Symbols []string `json:"symbols,omitempty" help:"a definition you are about to change: a name (ParseConfig, Server.Close) or SCIP symbol"`
	Budget  int      `json:"budget,omitempty" help:"maximum tokens of the briefing (0: 2000; a token is counted as 4 bytes)"`
}

// ContextItem is one memory of a briefing, with why it is there
// ("file", "symbol", "search"), its score (memory.ContextItem) and, when
// stale, the diff of its code then and now.
type ContextItem struct {
	Memory  memory.View `json:"memory"`
	Reasons []string    `json:"reasons"`
	Score   float64     `json:"score"`
	Diff    string      `json:"diff,omitempty"`
}

// ContextResult is the result of gloss.context: the briefing as Markdown
// (grouped by file, each memory cited [gloss:ID] with its status), the
// memories it holds, best first, the tokens it takes and how many
// memories did not fit.
type ContextResult struct {
	Markdown string        `json:"markdown"`
	Items    []ContextItem `json:"items"`
	Tokens   int           `json:"tokens"`
	Omitted  int           `json:"omitted"`
}

// SuggestAnchorsArgs are the arguments of gloss.suggestAnchors: the text
// (and title) of a memory, written or about to be.
type SuggestAnchorsArgs struct {
	Text  string `json:"text"`
	Title string `json:"title,omitempty"`
}

// SuggestAnchorsResult is the result of gloss.suggestAnchors: the
// definitions and files the text mentions, in the order of the text, each
// with its 1-based inclusive lines and why it is offered.
type SuggestAnchorsResult struct {
	Suggestions []memory.AnchorSuggestion `json:"suggestions"`
}
