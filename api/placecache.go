package api

import (
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// placeFile is what placing a request needs of one file: its
// workspace-relative path, its text when it is an open document (nil
// when read from disk through a placeCache), and its number of lines.
type placeFile struct {
	rel   string
	src   []byte
	open  bool
	lines int
	err   error
}

// placeCache keeps placeFile answers by absolute path for the requests of
// one RememberBatch call, so a batch of n requests on m files checks and
// reads each file once (m, not n, path resolutions and reads). The nil
// cache caches nothing.
type placeCache struct {
	files map[string]placeFile
}

// file returns the placeFile of the absolute path in w: the path checked
// (Workspace.RelPath) and the text read (Engine.text), or the error of
// either.
func (pc *placeCache) file(e *Engine, w *memory.Workspace, path string) (placeFile, error) {
	if pc != nil {
		if f, ok := pc.files[path]; ok {
			return f, f.err
		}
	}
	var f placeFile
	f.rel, f.err = w.RelPath(path)
	if f.err == nil {
		f.src, f.open, f.err = e.text(w, path)
		f.lines = index.LineCount(f.src)
	}
	if pc != nil {
		if pc.files == nil {
			pc.files = map[string]placeFile{}
		}
		cached := f
		if !cached.open {
			cached.src = nil // only the line count is needed again
		}
		pc.files[path] = cached
	}
	return f, f.err
}
