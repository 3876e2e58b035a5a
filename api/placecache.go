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
// reads each file once (m, not n, path resolutions and reads). A file on
// disk is read into one buffer reused from file to file (buf), for its
// line count. The nil cache caches nothing.
type placeCache struct {
	files map[string]placeFile
	buf   []byte
}

// file returns the placeFile of the absolute path in w: the path checked
// (Workspace.RelPath) and the text read (Engine.text), or the error of
// either. Through a cache, a file read from disk has no src.
func (pc *placeCache) file(e *Engine, w *memory.Workspace, path string) (placeFile, error) {
	if pc != nil {
		if f, ok := pc.files[path]; ok {
			return f, f.err
		}
	}
	var f placeFile
	f.rel, f.err = w.RelPath(path)
	if f.err == nil {
		var buf []byte
		if pc != nil {
			buf = pc.buf
		}
		f.src, f.open, f.err = e.textInto(buf, w, path)
		f.lines = index.LineCount(f.src)
		if pc != nil && !f.open {
			if cap(f.src) > cap(pc.buf) {
				pc.buf = f.src[:0]
			}
			f.src = nil // pc.buf's: read again into it for the next file
		}
	}
	if pc != nil {
		if pc.files == nil {
			pc.files = map[string]placeFile{}
		}
		pc.files[path] = f
	}
	return f, f.err
}
