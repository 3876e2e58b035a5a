//go:build unix

package bm25

import (
	"os"
	"syscall"
)

// mapSaved maps the size bytes of f read-only and shared, so that a
// search reads its blocks from the page cache without copying them into
// fresh heap memory (each 4 KiB page of which is a page fault; a file
// mapping's faults map up to 16 cached pages at once: Linux's
// fault-around). ok is false when f is empty or too large to map, or
// mmap fails (the caller then reads blocks with pread).
func mapSaved(f *os.File, size int64) ([]byte, bool) {
	if size <= 0 || size != int64(int(size)) {
		return nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	return data, true
}

// unmapSaved releases a mapping of mapSaved.
func unmapSaved(data []byte) { _ = syscall.Munmap(data) }
