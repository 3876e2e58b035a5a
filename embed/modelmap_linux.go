package embed

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapModel maps the size bytes of f read-only and shared (mmap
// PROT_READ, MAP_SHARED) and populates the mapping's page tables in one
// call (madvise MADV_POPULATE_READ, Linux 5.14; an older kernel refuses
// it and pages are then faulted in as they are read). ok is false when f
// is empty or too large to map, or mmap fails: the caller reads the file
// instead. The mapping is never unmapped (see LoadBuiltin).
func mapModel(f *os.File, size int64) ([]byte, bool) {
	if size <= 0 || size != int64(int(size)) {
		return nil, false
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	_ = unix.Madvise(data, unix.MADV_POPULATE_READ)
	return data, true
}

// unmapModel releases a mapping of mapModel that nothing refers to (a
// file LoadBuiltin found corrupt).
func unmapModel(data []byte) { _ = unix.Munmap(data) }
