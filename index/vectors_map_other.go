//go:build !unix

package index

import "os"

// mapFile does not map on this platform: the file is read instead.
func mapFile(*os.File, int64) ([]byte, bool) { return nil, false }

// unmapFile is never called on this platform.
func unmapFile([]byte) {}
