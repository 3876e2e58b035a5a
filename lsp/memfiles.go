package lsp

import (
	"path/filepath"

	"github.com/gloss-dev/gloss/memory"
)

// codeMemoryFile is the diagnostic code of a memory file that could not be
// loaded (memory.FileProblem).
const codeMemoryFile = "memory-file"

// setProblems records the memory-file problems of f's last check, published
// as diagnostics on the files (publishFolder, publishDoc).
func (s *Server) setProblems(f *folder, probs []memory.FileProblem) {
	byURI := map[string][]Diagnostic{}
	for _, p := range probs {
		uri := pathToURI(filepath.Join(f.root, filepath.FromSlash(p.Path)))
		line := max(p.Line-1, 0)
		byURI[uri] = append(byURI[uri], Diagnostic{
			Range:    Range{Start: Position{Line: line}, End: Position{Line: line + 1}},
			Severity: severityWarning,
			Code:     codeMemoryFile,
			Source:   "gloss",
			Message:  "gloss: memory file not loaded: " + p.Message,
		})
	}
	s.mu.Lock()
	f.problems = byURI
	s.mu.Unlock()
}

// withProblems appends the memory-file problems recorded for uri to diags.
func (s *Server) withProblems(uri string, diags []Diagnostic) []Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.folders {
		diags = append(diags, f.problems[uri]...)
	}
	return diags
}

// publishProblemsLocked publishes f's memory-file problems on the files
// that are not open (open ones get them with their document diagnostics)
// and marks their URIs in now. The caller holds pubMu.
func (s *Server) publishProblemsLocked(f *folder, now map[string]bool) {
	s.mu.Lock()
	pub := map[string][]Diagnostic{}
	for uri, d := range f.problems {
		if _, open := s.docs[uri]; !open {
			pub[uri] = d
		}
		now[uri] = true
	}
	s.mu.Unlock()
	for uri, d := range pub {
		s.publishLocked(uri, nil, d)
	}
}
