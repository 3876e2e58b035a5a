package index

import "syscall"

// dropResident drops the pages of a mapped base file from the process's
// resident set (madvise MADV_DONTNEED: the clean pages of a private
// mapping are faulted in again from the page cache when read). remapBase
// calls it after the checksum read every page, so that an ingest's peak
// RSS does not count the whole base file it never reads.
func (b *baseFile) dropResident() {
	if b != nil && b.mapped {
		_ = syscall.Madvise(b.data, syscall.MADV_DONTNEED)
	}
}
