package index

import (
	"os"
	"runtime"
)

// baseFile is the content of a vector base file as read by readBase: a
// private memory mapping of the file where the platform has one
// (vectors_map_unix.go), else a copy read into the heap. Mapping skips
// the copy and the zeroing of a 50 MiB buffer at 100,000 rows, which
// were most of what opening the index cost a CLI process (pprof).
//
// The rows of a vecState decoded from the file point into data, so the
// state keeps the baseFile alive (vecState.file); the mapping is released
// by a cleanup once no state refers to it. It is mapped copy-on-write:
// writing a row in place changes this process's copy, never the file.
type baseFile struct {
	data []byte
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
		b := &baseFile{data: data}
		runtime.AddCleanup(b, unmapFile, data)
		return b, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &baseFile{data: data}, nil
}
