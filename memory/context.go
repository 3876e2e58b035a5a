package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/memory/confidence"
)

// ContextRequest asks for a briefing: the memories that matter for a task
// about to be done.
type ContextRequest struct {
	// Task is what is about to be done, in words (searched as full text).
	Task string
	// Files are workspace files (absolute, or relative to the current
	// directory) about to be read or edited: their memories are included.
	// A file that neither exists nor has memories is an error.
	Files []string
	// Symbols are SCIP symbols or unique definition names about to be
	// changed: their memories are included.
	Symbols []string
	// Budget is the most tokens the briefing may take; 0 means
	// DefaultContextBudget.
	Budget int
}

// DefaultContextBudget is the token budget of a briefing when none is
// given.
const DefaultContextBudget = 2000

// ContextItem is one memory of a briefing.
type ContextItem struct {
	Memory *Memory
	// Reasons say why it is included: "file", "symbol", "search".
	Reasons []string
	// Score orders items (higher first): 1 for each file or symbol match,
	// plus the reciprocal rank 60/(60+rank) of the task in the fused
	// search of memories (FusedSearch, seeded by the files and symbols;
	// RRF, Cormack et al. 2009, k = 60); times the confidence and the
	// source trust (confidence.SourceTrust); halved when stale.
	Score float64
	// Diff is what changed in the code of a stale memory (AnchorDiff,
	// at most 12 lines).
	Diff string

	// ws is the workspace Context read Memory from (for Full).
	ws *Workspace
}

// Full returns it with its Memory read from the memory's record when
// Context ranked it from its stored summary (the anchors of which carry
// places and statuses only), as the memory is returned to a caller; it
// itself otherwise, or when the record cannot be read (forgotten since).
func (it ContextItem) Full() ContextItem {
	if it.ws != nil && it.Memory != nil {
		it.Memory = it.ws.fullMemory(it.Memory)
	}
	return it
}

// Tokens estimates the tokens of s as one per 4 bytes, rounded up: the
// usual rule of thumb for English text and code under BPE tokenizers
// (OpenAI's tokenizer documentation); it errs high for prose.
func Tokens(s string) int { return (len(s) + 3) / 4 }

// Context collects the memories of req's files and symbols and the best
// full-text matches of its task, ranked by ContextItem.Score. It reads
// stored statuses (no rescan) and the current files for diffs. When every
// memory has a current summary (summariesRankable) the memories are
// ranked from their summaries and only stale ones (for their diffs) are
// read whole: an item's Memory may then lack its anchors' hashes and
// snapshots, and ContextItem.Full reads the record of the items a caller
// returns. Items, order and scores are those of reading every record.
func (w *Workspace) Context(ctx context.Context, req ContextRequest) ([]ContextItem, error) {
	byID := map[string]*ContextItem{}
	var order []string
	fromSummaries := w.summariesRankable()
	add := func(m *Memory, reason string, score float64) {
		it := byID[m.ID]
		if it == nil {
			it = &ContextItem{Memory: m, ws: w}
			byID[m.ID] = it
			order = append(order, m.ID)
		}
		it.Reasons = append(it.Reasons, reason)
		it.Score += score
	}
	var hits []Result
	var searchErr error
	done := make(chan struct{})
	go func() { // the task's search runs while the files' and symbols' memories are read
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				searchErr = fmt.Errorf("context search: %v", p)
			}
		}()
		if strings.TrimSpace(req.Task) != "" {
			hits, searchErr = w.FusedSearch(ctx, SearchRequest{Query: req.Task, Limit: 50, Kind: ResultMemory, Files: req.Files, Symbols: req.Symbols,
				fromSummaries: fromSummaries})
		}
	}()
	err := w.contextAnchored(req, fromSummaries, add)
	<-done
	if err != nil {
		return nil, err
	}
	if searchErr != nil {
		return nil, searchErr
	}
	for rank, h := range hits {
		add(h.Memory, "search", RRFK/float64(RRFK+rank+1))
	}
	out := make([]ContextItem, 0, len(order))
	for _, id := range order {
		it := byID[id]
		it.Score *= it.Memory.rankConfidence() * confidence.SourceTrust(it.Memory.Source)
		if it.Memory.Stale() {
			it.Score /= 2
			it.Memory = w.fullMemory(it.Memory)
			it.Diff = w.staleDiff(it.Memory)
		}
		out = append(out, *it)
	}
	w.lowerSuperseded(out)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Memory.ID < out[j].Memory.ID
	})
	return out, nil
}

// contextAnchored adds the memories of req's files and symbols, built
// from their summaries when fromSummaries (summaryMemory), else read.
func (w *Workspace) contextAnchored(req ContextRequest, fromSummaries bool, add func(m *Memory, reason string, score float64)) error {
	read := w.get
	if fromSummaries {
		read = w.summaryMemory
	}
	for _, f := range req.Files {
		ms, err := w.at(f, 0, 0, read)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			rel, err := w.RelPath(f)
			if err != nil {
				return err
			}
			if _, err := os.Lstat(filepath.Join(w.Root, filepath.FromSlash(rel))); errors.Is(err, fs.ErrNotExist) {
				// A mistyped path (or "a.go,b.go" for two) would give
				// a briefing without the file's memories and no reason.
				return fmt.Errorf("no file %s in the workspace", rel)
			}
		}
		for _, m := range ms {
			add(m, "file", 1)
		}
	}
	for _, s := range req.Symbols {
		sym, err := w.resolveSymbol(s)
		if err != nil {
			return err
		}
		ms, err := w.forSymbolRanked(sym, fromSummaries)
		if err != nil {
			return err
		}
		for _, m := range ms {
			add(m, "symbol", 1)
		}
	}
	return nil
}

// staleDiff is the diff of m's stale anchors against the files now.
func (w *Workspace) staleDiff(m *Memory) string {
	var b strings.Builder
	for _, a := range m.Anchors {
		if IsStale(a.Status) {
			src, _ := w.ReadFile(filepath.Join(w.Root, filepath.FromSlash(a.Path)))
			b.WriteString(AnchorDiff(a, src, 12))
		}
	}
	return b.String()
}

// resolveSymbol returns the SCIP symbol of s: s itself when it is stored,
// else the one definition named s ("Name", "Type.Method").
func (w *Workspace) resolveSymbol(s string) (string, error) {
	if defs, err := w.Store.DefsBySymbol(s); err != nil || len(defs) > 0 {
		return s, err
	}
	defs, err := w.defsByName(s)
	if err != nil {
		return "", err
	}
	switch {
	case len(defs) == 0:
		return "", fmt.Errorf("no definition %q in the index", s)
	case defs[0].Symbol != defs[len(defs)-1].Symbol:
		return "", ambiguousName(s, defs)
	}
	return defs[0].Symbol, nil
}

// ResolveSymbol returns the SCIP symbol s names: s itself when a stored
// definition has that symbol, else the one definition named s ("Name",
// "Type.Method", as remember --symbol takes it). It fails when s names
// no definition, or several (the error lists up to 8 of them, each with
// its path and 1-based line).
func (w *Workspace) ResolveSymbol(s string) (string, error) {
	return w.resolveSymbol(s)
}

// Briefing renders items as Markdown within budget tokens (Tokens),
// grouped by the file of each memory's first anchor (files in order of
// their best item), each memory cited as [gloss:ID] with its status; a
// stale one carries what changed. It returns the Markdown, the items it
// holds (in items' order; an item that does not fit is left out and later,
// smaller ones may still fit) and the tokens used. Memories without
// anchors are listed under "Workspace".
func Briefing(task string, items []ContextItem, budget int) (md string, included []ContextItem, used int) {
	if budget <= 0 {
		budget = DefaultContextBudget
	}
	var b strings.Builder
	head := "# gloss briefing\n\n"
	if strings.TrimSpace(task) != "" {
		head = "# gloss briefing: " + strings.TrimSpace(firstLine(task)) + "\n\n"
	}
	b.WriteString(head)
	used = Tokens(head)
	groups := map[string][]string{}
	var files []string
	for _, it := range items {
		file := "Workspace"
		if len(it.Memory.Anchors) > 0 {
			file = it.Memory.Anchors[0].Path
		}
		entry := briefEntry(it)
		if used+Tokens(entry) > budget {
			continue
		}
		included = append(included, it)
		if _, ok := groups[file]; !ok {
			files = append(files, file)
			used += Tokens("## " + file + "\n\n")
		}
		groups[file] = append(groups[file], entry)
		used += Tokens(entry)
	}
	for _, f := range files {
		b.WriteString("## " + f + "\n\n")
		for _, e := range groups[f] {
			b.WriteString(e)
		}
	}
	if n := len(items) - len(included); n > 0 {
		fmt.Fprintf(&b, "_%d more memories did not fit the budget of %d tokens._\n", n, budget)
	}
	return b.String(), included, used
}

// briefEntry is one memory of a briefing.
func briefEntry(it ContextItem) string {
	m := it.Memory
	var b strings.Builder
	fmt.Fprintf(&b, "- **[%s] %s** [gloss:%s]", m.Type, m.Title, m.ID)
	for _, a := range m.Anchors {
		fmt.Fprintf(&b, " · %s %s:%d-%d", a.Status, a.Path, a.Range.StartLine+1, a.Range.LastLine()+1)
	}
	b.WriteString("\n")
	if body := strings.TrimSpace(m.Body); body != "" && body != m.Title {
		for _, l := range strings.Split(body, "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	if it.Diff != "" {
		b.WriteString("  ⚠ stale: the code changed since it was written:\n  ```diff\n")
		for _, l := range strings.Split(strings.TrimRight(it.Diff, "\n"), "\n") {
			b.WriteString("  " + l + "\n")
		}
		b.WriteString("  ```\n")
	}
	b.WriteString("\n")
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
