//go:build unix && !linux

package index

// populate does nothing where MADV_POPULATE_READ does not exist: pages
// of the mapping are faulted in as they are read.
func populate([]byte) {}
