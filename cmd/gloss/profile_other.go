//go:build !unix

package main

import "os"

// profileCutSignals are the signals that cut the CPU profile
// (startCPUProfile): none where there is no SIGUSR1.
func profileCutSignals() []os.Signal { return nil }
