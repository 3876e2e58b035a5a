package index

import "syscall"

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
