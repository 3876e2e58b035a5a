//go:build !unix

package main

import "os"

// maxRSSMiB is not measured on this platform (0).
func maxRSSMiB(*os.ProcessState) float64 { return 0 }
