package index

import (
	"os"
	"syscall"
	"unsafe"
)

// dropResident drops the pages of a mapped base file from the process's
// resident set (madvise MADV_DONTNEED: the clean pages of a private
// mapping are faulted in again from the page cache when read). remapBase
// calls it on a mapping nothing has written to yet, so that an ingest's
// peak RSS does not count the pages of the base file it read back.
func (b *baseFile) dropResident() {
	if b != nil && b.mapped {
		_ = syscall.Madvise(b.data, syscall.MADV_DONTNEED)
	}
}

// madvPageout is MADV_PAGEOUT (Linux 5.4; the syscall package lacks it).
const madvPageout = 21

// pageOut asks the kernel to reclaim the whole pages of part, when it
// lies in b's mapping, from the process's resident set (madvise
// MADV_PAGEOUT: clean pages are dropped and read again from the file
// when used, pages written through the private mapping are kept or
// swapped, never lost).
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
	_ = syscall.Madvise(part[start-p:end-p], madvPageout)
}
