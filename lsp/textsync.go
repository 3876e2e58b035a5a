package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
)

// notification handles document and workspace notifications in order, on
// the read loop.
func (s *Server) notification(_ context.Context, req *jsonrpc2.Request) error {
	switch req.Method() {
	case "initialized":
		s.initialized()
	case "textDocument/didOpen":
		return notify(req, s.didOpen)
	case "textDocument/didChange":
		return notify(req, s.didChange)
	case "textDocument/didSave":
		return notify(req, s.didSave)
	case "textDocument/didClose":
		return notify(req, s.didClose)
	case "workspace/didChangeWatchedFiles":
		return notify(req, s.didChangeWatchedFiles)
	case "workspace/didChangeWorkspaceFolders":
		return notify(req, s.didChangeWorkspaceFolders)
	}
	return nil
}

// notify decodes a notification's params and runs its handler.
func notify[P any](req *jsonrpc2.Request, fn func(P) error) error {
	var p P
	if err := decode(req, &p); err != nil {
		return err
	}
	return fn(p)
}

func (s *Server) didOpen(p didOpenParams) error {
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return err
	}
	d := &document{uri: p.TextDocument.URI, path: path, version: p.TextDocument.Version, text: newText([]byte(p.TextDocument.Text))}
	s.mu.Lock()
	s.docs[d.uri] = d
	s.mu.Unlock()
	if f := s.folderFor(path); f != nil {
		f.w.PrioritizeIndex(path) // a background index parses it next
	}
	s.scheduleDoc(d.uri)
	return nil
}

// didChange applies incremental changes in the negotiated position
// encoding; the document is replaced, never mutated.
func (s *Server) didChange(p didChangeParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.mu.Unlock()
		return fmt.Errorf("didChange for %s, which is not open", p.TextDocument.URI)
	}
	t := d.text
	var err error
	for _, c := range p.ContentChanges {
		nt, cerr := t.apply(c, s.enc)
		if cerr != nil {
			err = cerr
			break
		}
		t = nt
	}
	s.docs[d.uri] = &document{uri: d.uri, path: d.path, version: p.TextDocument.Version, text: t}
	s.mu.Unlock()
	s.scheduleDoc(d.uri)
	return err
}

// didSave applies a saved memory file and checks the folder (the file on
// disk changed).
func (s *Server) didSave(p didSaveParams) error {
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return err
	}
	if p.Text != nil {
		s.mu.Lock()
		if d := s.docs[p.TextDocument.URI]; d != nil {
			s.docs[d.uri] = &document{uri: d.uri, path: d.path, version: d.version, text: newText([]byte(*p.Text))}
		}
		s.mu.Unlock()
	}
	if f := s.folderFor(path); f != nil {
		s.memoryFileChanged(f, path, false)
		s.scheduleCheck(f)
	}
	return nil
}

// didClose drops the document; its diagnostics fall back to the stored
// statuses of the file on disk.
func (s *Server) didClose(p didCloseParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	delete(s.docs, p.TextDocument.URI)
	delete(s.unresolvable, p.TextDocument.URI)
	s.mu.Unlock()
	if d != nil {
		if f := s.folderFor(d.path); f != nil {
			f.w.ForgetDocument(d.path)
			// In order, so that a request sent after the close sees it.
			s.discardEmptyDraft(f, d.path)
			s.goBG(func() { s.publishStoredFile(f, d.path) })
		}
	}
	return nil
}
