//go:build !unix

package bm25

import "os"

// mapSaved does not map on this system: blocks are read with pread.
func mapSaved(*os.File, int64) ([]byte, bool) { return nil, false }

// unmapSaved releases a mapping of mapSaved (none here).
func unmapSaved([]byte) {}
