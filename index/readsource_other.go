//go:build !unix

package index

// sourceOpenFlags: no FIFOs or O_NOFOLLOW here; the fstat check of
// ReadSourceFile still refuses non-regular files.
const sourceOpenFlags = 0
