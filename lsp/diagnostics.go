package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/gloss-dev/gloss/internal/syncx"
	"github.com/gloss-dev/gloss/memory"
)

// scheduleDoc recomputes and publishes the diagnostics of an open document
// in the background, coalescing bursts of changes.
func (s *Server) scheduleDoc(uri string) {
	s.mu.Lock()
	c := s.docRuns[uri]
	if c == nil {
		c = &syncx.Coalescer{}
		s.docRuns[uri] = c
	}
	s.mu.Unlock()
	s.bg.Add(1)
	if !c.Run(func() { s.publishDoc(uri) }, s.bg.Done) {
		s.bg.Done()
	}
}

// publishDoc publishes the diagnostics of the current version of an open
// document. Every version ends in a publish: a run that finds a newer
// version than its snapshot leaves it to the rerun the change scheduled,
// and a document that cannot be resolved (binary, oversize) publishes its
// memory-file problems alone rather than leave the last ones standing.
func (s *Server) publishDoc(uri string) {
	if s.closing() {
		return
	}
	sn := s.snapshot(uri)
	if !sn.open || sn.f == nil {
		return
	}
	r := s.resolve(sn)
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	var diags []Diagnostic
	if r.err != nil {
		s.mu.Lock()
		logged := s.unresolvable[uri]
		s.unresolvable[uri] = true
		s.mu.Unlock()
		if !logged { // once per opening, not per keystroke
			s.log.Printf("resolve %s: %v", uri, r.err)
		}
	} else {
		diags = diagnostics(sn.f.w.Visible(r.mems), sn.rel, sn.t, enc)
	}
	diags = s.withProblems(uri, diags)
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.mu.Lock()
	d := s.docs[uri]
	current := d != nil && d.text == sn.t && d.version == sn.version
	s.mu.Unlock()
	if !current {
		return // a newer change has scheduled another run
	}
	v := sn.version
	s.publishLocked(uri, &v, diags)
}

// publishLocked sends diagnostics; the caller holds pubMu.
func (s *Server) publishLocked(uri string, version *int, diags []Diagnostic) {
	s.mu.Lock()
	was := s.published[uri]
	if len(diags) > 0 {
		s.published[uri] = true
	} else {
		delete(s.published, uri)
	}
	s.mu.Unlock()
	if len(diags) == 0 && !was && version == nil {
		return // nothing to clear
	}
	if diags == nil {
		diags = []Diagnostic{}
	}
	s.notify("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Version: version, Diagnostics: diags})
}

// publishFolder publishes the diagnostics of every file of f from mems
// (stored statuses) and clears those of files without stale anchors. Open
// documents are re-resolved against their text instead.
func (s *Server) publishFolder(f *folder, mems []*memory.Memory) {
	mems = f.w.Visible(mems) // a superseded memory gets no diagnostic
	stale := map[string]bool{}
	for _, m := range mems {
		if m.Source == memory.SourceImportedGit {
			continue // history is expected to be stale: see diagnostics
		}
		for _, a := range m.Anchors {
			if memory.IsStale(a.Status) {
				stale[a.Path] = true
			}
		}
	}
	s.mu.Lock()
	enc := s.enc
	openRel := map[string]string{} // rel → uri
	var openURIs []string
	for uri, d := range s.docs {
		if s.folderForLocked(d.path) != f {
			continue
		}
		openURIs = append(openURIs, uri)
		if rel, err := f.w.RelPath(d.path); err == nil {
			openRel[rel] = uri
		}
	}
	var old []string
	for uri := range s.published {
		old = append(old, uri)
	}
	s.mu.Unlock()

	byFile := map[string][]*memory.Memory{}
	for _, m := range mems {
		for _, a := range m.Anchors {
			if stale[a.Path] {
				byFile[a.Path] = append(byFile[a.Path], m)
			}
		}
	}
	now := map[string]bool{}
	s.pubMu.Lock()
	files := make([]string, 0, len(byFile))
	for rel := range byFile {
		files = append(files, rel)
	}
	sort.Strings(files)
	for _, rel := range files {
		if _, ok := openRel[rel]; ok {
			continue
		}
		path := filepath.Join(f.root, filepath.FromSlash(rel))
		uri := pathToURI(path)
		now[uri] = true
		src, _ := f.w.ReadFile(path) // a FIFO or a huge file gives no text, not a hang
		s.publishLocked(uri, nil, diagnostics(dedupe(byFile[rel]), rel, newText(src), enc))
	}
	s.publishProblemsLocked(f, now)
	for _, uri := range old {
		if now[uri] {
			continue
		}
		p, err := uriToPath(uri)
		if err != nil || s.folderFor(p) != f {
			continue
		}
		s.mu.Lock()
		_, open := s.docs[uri]
		s.mu.Unlock()
		if !open {
			s.publishLocked(uri, nil, nil)
		}
	}
	s.pubMu.Unlock()
	for _, uri := range openURIs {
		s.scheduleDoc(uri)
	}
}

// publishStoredFile publishes the stored-status diagnostics of a file that
// is not open (after didClose).
func (s *Server) publishStoredFile(f *folder, path string) {
	mems, err := f.w.At(path, 0, 0)
	if err != nil {
		return
	}
	mems = f.w.Visible(mems)
	rel, err := f.w.RelPath(path)
	if err != nil {
		return
	}
	src, _ := f.w.ReadFile(path)
	s.mu.Lock()
	enc := s.enc
	s.mu.Unlock()
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	uri := pathToURI(path)
	s.mu.Lock()
	_, open := s.docs[uri]
	s.mu.Unlock()
	if !open {
		s.publishLocked(uri, nil, s.withProblems(uri, diagnostics(mems, rel, newText(src), enc)))
	}
}

func (s *Server) folderForLocked(p string) *folder {
	for _, f := range s.folders {
		if memory.Contains(f.root, p) {
			return f
		}
	}
	return nil
}

func dedupe(ms []*memory.Memory) []*memory.Memory {
	seen := map[string]bool{}
	out := ms[:0:0]
	for _, m := range ms {
		if !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m)
		}
	}
	return out
}

// diagnostics returns one warning per stale anchor of mems in rel, placed
// on the first line of the anchor in t. Memories imported from git history
// get none: that a commit's code changed later is what their hover shows,
// not a problem to fix, and a long history would flood the problems list.
func diagnostics(mems []*memory.Memory, rel string, t *text, enc string) []Diagnostic {
	var out []Diagnostic
	for _, m := range mems {
		if m.Source == memory.SourceImportedGit {
			continue
		}
		for _, a := range m.Anchors {
			if a.Path != rel || !memory.IsStale(a.Status) {
				continue
			}
			out = append(out, diagnosticFor(m, a, t, enc))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Line < out[j].Range.Start.Line })
	return out
}

func diagnosticFor(m *memory.Memory, a memory.Anchor, t *text, enc string) Diagnostic {
	code, what := CodeStale, "describes code that changed since"
	switch a.Status {
	case memory.StatusSignatureChanged:
		code, what = CodeSignatureChanged, "describes code whose signature changed since"
	case memory.StatusDeleted:
		code, what = CodeAnchorLost, "describes code that can no longer be found"
	}
	data, _ := json.Marshal(map[string]string{"memoryId": m.ID})
	return Diagnostic{
		Range:    t.lineRange(a.Range.StartLine, a.Range.StartLine, enc),
		Severity: severityWarning,
		Code:     code,
		Source:   "gloss",
		Message:  fmt.Sprintf("Memory “%s” (%s) %s", m.Title, m.CreatedAt.Format("2006-01-02"), what),
		Data:     data,
	}
}
