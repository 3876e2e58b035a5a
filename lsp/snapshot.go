package lsp

import (
	"fmt"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// resolved is the memories of one document snapshot.
type resolved struct {
	mems []*memory.Memory
	defs []index.Definition
	err  error
}

// snap is what a request needs of a document, captured in order on the
// read loop: the open document's text, or (t == nil) the file on disk.
type snap struct {
	uri     string
	path    string
	f       *folder
	t       *text
	version int
	open    bool
	err     error
	rel     string
}

// snapshot captures the document state of uri (cheap; no disk access).
func (s *Server) snapshot(uri string) *snap {
	sn := &snap{uri: uri}
	s.mu.Lock()
	d := s.docs[uri]
	s.mu.Unlock()
	if d != nil {
		sn.path, sn.t, sn.version, sn.open = d.path, d.text, d.version, true
	} else {
		sn.path, sn.err = uriToPath(uri)
		if sn.err != nil {
			return sn
		}
	}
	sn.f = s.folderFor(sn.path)
	if sn.f == nil {
		sn.err = s.retryFolders(sn.path)
		if sn.err == nil {
			sn.err = fmt.Errorf("%s is outside the workspace folders", uri)
		}
	}
	return sn
}

// load fills in the workspace-relative path and, for a closed document,
// reads the file.
func (sn *snap) load() error {
	if sn.err != nil {
		return sn.err
	}
	if sn.rel == "" {
		rel, err := sn.f.w.RelPath(sn.path)
		if err != nil {
			sn.err = err
			return err
		}
		sn.rel = rel
	}
	if sn.t == nil {
		src, err := sn.f.w.ReadFile(sn.path)
		if err != nil {
			sn.err = err
			return err
		}
		sn.t = newText(src)
	}
	return nil
}

// resolve returns the memories anchored in the snapshot's file resolved
// against its text, and its definitions (memory's document cache, keyed by
// the immutable text snapshot).
func (s *Server) resolve(sn *snap) *resolved {
	if err := sn.load(); err != nil {
		return &resolved{err: err}
	}
	r := sn.f.w.ResolveDocumentCached(sn.path, sn.t.src, sn.t)
	return &resolved{mems: r.Memories, defs: r.Defs, err: r.Err}
}
