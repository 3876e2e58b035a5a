//go:build unix

package index

import (
	"os"
	"syscall"
)

// mapFile maps the size bytes of f privately (copy-on-write), readable
// and writable; pages are faulted in from the page cache as they are
// read, or populated by decodeBase for the parts a search reads
// (baseFile.populate; MAP_POPULATE, tried too, made opening 100,000 rows 6× slower
// here: it copies every page of a private mapping up front). ok is false
// when f is empty or too large to map, or mmap fails (the caller reads
// the file instead).
func mapFile(f *os.File, size int64) ([]byte, bool) {
	if size <= 0 || size != int64(int(size)) {
		return nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	return data, true
}

// unmapFile releases a mapping of mapFile.
func unmapFile(data []byte) { _ = syscall.Munmap(data) }
