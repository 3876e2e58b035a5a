//go:build !linux

package index

// dropResident does nothing on this platform (see the Linux version).
func (b *baseFile) dropResident() {}

// pageOut does nothing on this platform (see the Linux version).
func (b *baseFile) pageOut([]byte) {}
