package lsp

import (
	"fmt"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// resolved caches the memories of one document snapshot.
type resolved struct {
	text *text
	gen  uint64
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
		sn.err = fmt.Errorf("%s is outside the workspace folders", uri)
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
// against its text, and its definitions; cached per open document text and
// store generation.
func (s *Server) resolve(sn *snap) *resolved {
	if err := sn.load(); err != nil {
		return &resolved{err: err}
	}
	gen := s.gen.Load()
	if sn.open {
		s.mu.Lock()
		r := s.cache[sn.uri]
		s.mu.Unlock()
		if r != nil && r.text == sn.t && r.gen == gen {
			return r
		}
	}
	// One resolution per document text and generation: a hover sent
	// right after a change waits for the resolution the change started.
	key := flightKey{sn.uri, sn.t, gen}
	s.mu.Lock()
	if fl := s.flights[key]; fl != nil {
		s.mu.Unlock()
		<-fl.done
		return fl.r
	}
	fl := &flight{done: make(chan struct{})}
	s.flights[key] = fl
	s.mu.Unlock()

	r := &resolved{text: sn.t, gen: gen}
	r.mems, r.defs, r.err = sn.f.w.ResolveDocumentDefs(sn.path, sn.t.src)
	s.mu.Lock()
	delete(s.flights, key)
	if sn.open {
		if d := s.docs[sn.uri]; d != nil && d.text == sn.t {
			s.cache[sn.uri] = r
		}
	}
	s.mu.Unlock()
	fl.r = r
	close(fl.done)
	return r
}

type flightKey struct {
	uri string
	t   *text
	gen uint64
}

type flight struct {
	done chan struct{}
	r    *resolved
}
