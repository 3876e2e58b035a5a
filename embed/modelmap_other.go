//go:build !linux

package embed

import "os"

// mapModel does not map on this platform: LoadBuiltin reads the file
// into the heap instead.
func mapModel(*os.File, int64) ([]byte, bool) { return nil, false }

// unmapModel is never called on this platform.
func unmapModel([]byte) {}
