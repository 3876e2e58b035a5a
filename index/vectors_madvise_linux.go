package index

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// populate maps every page of a private file mapping of mapFile for
// reading up front (madvise MADV_POPULATE_READ, Linux 5.14): one system
// call instead of a page fault per 64 KiB as the CRC-32 check first reads
// them, and, unlike MAP_POPULATE on a writable private mapping, without
// copying the pages (they are copied on a later write only). Mapping and
// checking a base file of 100,000 rows of 192 float32 took about a
// quarter less CPU so (docs/benchmarks.md). An older kernel refuses the
// advice (EINVAL), which changes nothing: pages are then faulted in as
// they are read.
func populate(data []byte) { _ = unix.Madvise(data, unix.MADV_POPULATE_READ) }

// dropResident drops the pages of a mapped base file from the process's
// resident set (madvise MADV_DONTNEED: the clean pages of a private
// mapping are faulted in again from the page cache when read). remapBase
// calls it on a mapping nothing has written to yet, so that an ingest's
// peak RSS does not count the pages of the base file it read back.
func (b *baseFile) dropResident() {
	if b != nil && b.mapped {
		_ = unix.Madvise(b.data, unix.MADV_DONTNEED)
	}
}

// pageOut asks the kernel to reclaim the whole pages of part, when it
// lies in b's mapping, from the process's resident set (madvise
// MADV_PAGEOUT, Linux 5.4: clean pages are dropped and read again from
// the file when used, pages written through the private mapping are kept
// or swapped, never lost).
// writeBaseFile calls it on each part of the mapped rows it has written,
// so that writing a new base does not make the whole old one resident.
// Kernels without MADV_PAGEOUT refuse it, and nothing changes.
func (b *baseFile) pageOut(part []byte) {
	if b == nil || !b.mapped || len(part) == 0 || len(b.data) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	p := uintptr(unsafe.Pointer(&part[0]))
	lo := uintptr(unsafe.Pointer(&b.data[0]))
	if p < lo || p+uintptr(len(part)) > lo+uintptr(len(b.data)) {
		return // not in the mapping (a copy of the rows)
	}
	start := (p + page - 1) &^ (page - 1)
	end := (p + uintptr(len(part))) &^ (page - 1)
	if end <= start {
		return
	}
	_ = unix.Madvise(part[start-p:end-p], unix.MADV_PAGEOUT)
}
