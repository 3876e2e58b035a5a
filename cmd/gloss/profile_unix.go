//go:build unix

package main

import (
	"os"
	"syscall"
)

// profileCutSignals are the signals that cut the CPU profile
// (startCPUProfile): SIGUSR1.
func profileCutSignals() []os.Signal { return []os.Signal{syscall.SIGUSR1} }
