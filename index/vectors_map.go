package index

import "os"

// baseFile is the content of a vector base file as read by readBase: a
// private memory mapping of the file where the platform has one
// (vectors_map_unix.go), else a copy read into the heap. Mapping skips
// the copy and the zeroing of a 50 MiB buffer at 100,000 rows, which
// were most of what opening the index cost a CLI process (pprof).
//
// The rows of a vecState decoded from the file point into data, so the
// mapping is released explicitly (release) only when no state can refer
// to it any more: by Vectors.Close, or when a state that never referred
// to it replaces the one that did (Vectors.dropBase). It is mapped
// copy-on-write: writing a row in place changes this process's copy,
// never the file.
type baseFile struct {
	data   []byte
	mapped bool
}

// release unmaps a mapped file; data must not be used afterwards. It is
// a no-op for a heap copy or a nil baseFile.
func (b *baseFile) release() {
	if b != nil && b.mapped {
		unmapFile(b.data)
		b.data, b.mapped = nil, false
	}
}

// populate maps the pages of part, a part of b's data, for reading up
// front where the platform can (populate); nothing for a heap copy.
func (b *baseFile) populate(part []byte) {
	if b != nil && b.mapped && len(part) > 0 {
		populate(part)
	}
}

// readBase reads the base file at path.
func readBase(path string) (*baseFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if data, ok := mapFile(f, st.Size()); ok {
		return &baseFile{data: data, mapped: true}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &baseFile{data: data}, nil
}
