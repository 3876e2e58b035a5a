package memory

import (
	"context"
	"fmt"
	"sort"

	"github.com/gloss-dev/gloss/index"
)

// At returns the memories with an anchor in path (validated like RelPath)
// overlapping the 1-based inclusive lines first..last; first 0 means the
// whole file.
func (w *Workspace) At(path string, first, last int) ([]*Memory, error) {
	return w.at(path, first, last, w.get)
}

// at is At reading each memory with read (Workspace.get, or
// summaryMemory for ranking).
func (w *Workspace) at(path string, first, last int, read func(id string) (*Memory, error)) ([]*Memory, error) {
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
		m, err := read(id)
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
	return w.verifyIndexed(id, overlay)
}

// verifyIndexed is VerifyDocuments after the index was brought up to
// date; overlay maps workspace-relative paths to unsaved text.
func (w *Workspace) verifyIndexed(id string, overlay map[string][]byte) (*Memory, error) {
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
					na, found = w.SymbolAnchor(f, d), true
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
	m.VerifiedAt, m.UpdatedAt, m.NeedsReview, m.ReviewReason = now, now, false, ""
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
	err := w.putMemory(b, old, m)
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
	Root      string `json:"root"`
	ProjectID string `json:"project_id"`
	DataDir   string `json:"data_dir"`
	Memories  int    `json:"memories"`
	Stale     int    `json:"stale"`
	// ImportedGit counts the memories made by import-git (source
	// SourceImportedGit) and StaleImportedGit the stale ones of them,
	// included in Memories and Stale: they describe older code, so
	// check --exit-code does not fail on them (api.CheckResult.StaleImported).
	ImportedGit      int            `json:"imported_git,omitempty"`
	StaleImportedGit int            `json:"stale_imported_git,omitempty"`
	ByStatus         map[string]int `json:"anchors_by_status"`
	ByType           map[string]int `json:"memories_by_type"`
	Files            int            `json:"files"`
	Symbols          int            `json:"symbols"`
	// Reembedding is the progress of a running re-embedding of the vector
	// index with a new model (Workspace.Reembedding); nil when none runs.
	Reembedding *ReembedStatus `json:"reembedding,omitempty"`
	// Vectors says why vector search does not use the configured
	// embedder's vectors (Workspace.VectorsNote): a change of embedder
	// awaiting or running its re-embedding; "" otherwise.
	Vectors string `json:"vectors,omitempty"`
}

// Status counts memories, stale memories and indexed files and symbols as
// stored (it does not rescan; run Check for that). The memories are
// counted from their stored summaries (type, source, staleness, anchor
// statuses: what ViewOf keeps of them) when those are current
// (summariesReady), else from their records (List): decoding 100,000
// records took 4.5–6.4 s and peaked at 450 MB on prometheus, reading the
// summaries about 0.5 s (docs/benchmarks.md, session 20).
func (w *Workspace) Status() (Status, error) {
	s := Status{Root: w.Root, ProjectID: w.ID, DataDir: w.Dir, ByStatus: map[string]int{}, ByType: map[string]int{}}
	if err := w.countMemories(&s); err != nil {
		return s, err
	}
	if r, ok := w.Reembedding(); ok {
		s.Reembedding = &r
	}
	s.Vectors = w.VectorsNote()
	metas, err := w.Store.FileMetas()
	for _, fm := range metas {
		s.Files++
		s.Symbols += fm.Defs
	}
	return s, err
}

// countMemories adds every memory to s's counts: from the stored
// summaries when they are current, else from the decoded records.
func (w *Workspace) countMemories(s *Status) error {
	ready, err := w.summariesReady()
	if err != nil {
		return err
	}
	if !ready {
		mems, err := w.List()
		if err != nil {
			return err
		}
		for _, m := range mems {
			v := ViewOf(m)
			s.count(&v)
		}
		return nil
	}
	var v View
	return w.Store.Summaries(func(id string, data []byte) error {
		if err := decodeSummaryReuse(&v, data, ""); err != nil {
			return fmt.Errorf("corrupt summary of memory %s: %w", id, err)
		}
		s.count(&v)
		return nil
	})
}

// count adds the memory of v to s's counts.
func (s *Status) count(v *View) {
	s.Memories++
	s.ByType[v.Type]++
	imported := v.Source == SourceImportedGit
	if imported {
		s.ImportedGit++
	}
	if v.Stale {
		s.Stale++
		if imported {
			s.StaleImportedGit++
		}
	}
	for _, a := range v.Anchors {
		s.ByStatus[a.Status]++
	}
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

// MaxFileSize is the indexing size limit in bytes (the indexer's MaxFileSize,
// else index.DefaultMaxFileSize).
func (w *Workspace) MaxFileSize() int64 {
	if w.Indexer.MaxFileSize > 0 {
		return w.Indexer.MaxFileSize
	}
	return index.DefaultMaxFileSize
}
