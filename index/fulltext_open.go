package index

import (
	"fmt"

	"github.com/blugelabs/bluge"
)

// A FullText opened on an existing index reads it through a Bluge reader
// (bluge.OpenReader: the last persisted snapshot, no lock, no writer
// goroutines) and opens its writer at the first write. A process that
// only searches (a CLI call) thus never starts a writer: opening one
// took a lock file, started Bluge's merge and persist goroutines and
// synced on close, about 10 ms of CPU and more of wall per call on the
// 100,000-memory benchmark (pprof, strace).

// openFullTextReader opens the index in dir for reading.
func openFullTextReader(dir, schema string) (*FullText, error) {
	r, err := bluge.OpenReader(bluge.DefaultConfig(dir))
	if err != nil {
		return nil, err
	}
	return &FullText{dir: dir, schema: schema, reader: r}, nil
}

// snapshot returns a reader of the index's current content and the
// function that releases it: the writer's snapshot once a writer is
// open, else the shared reader (counted, so that openWriter closes it
// only when no search uses it).
func (f *FullText) snapshot() (*bluge.Reader, func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.writer != nil {
		r, err := f.writer.Reader()
		if err != nil {
			return nil, nil, err
		}
		return r, func() { _ = r.Close() }, nil
	}
	if f.reader == nil {
		return nil, nil, fmt.Errorf("full-text index %s is closed", f.dir)
	}
	f.readers++
	r := f.reader
	return r, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.readers--
		if f.readers == 0 && f.reader != r { // replaced by a writer meanwhile
			_ = r.Close()
		}
	}, nil
}

// openWriter returns the index's writer, opening it for an index opened
// for reading; the shared reader is closed now or by its last search.
func (f *FullText) openWriter() (*bluge.Writer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.writer != nil {
		return f.writer, nil
	}
	wr, err := bluge.OpenWriter(bluge.DefaultConfig(f.dir))
	if err != nil {
		return nil, fmt.Errorf("open full-text index for writing: %w", err)
	}
	f.writer = wr
	if f.reader != nil {
		if f.readers == 0 {
			_ = f.reader.Close()
		}
		f.reader = nil
	}
	return wr, nil
}

// closeAll closes the writer and the shared reader (if no search holds
// it: the last one then closes it).
func (f *FullText) closeAll() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var err error
	if f.writer != nil {
		err = f.writer.Close()
		f.writer = nil
	}
	if f.reader != nil {
		if f.readers == 0 {
			_ = f.reader.Close()
		}
		f.reader = nil
	}
	return err
}
