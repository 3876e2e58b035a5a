//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSMiB returns the peak resident set size of a finished process in
// MiB (ru_maxrss: KiB on Linux, bytes on macOS).
func maxRSSMiB(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return float64(ru.Maxrss) / 1024
}

// cpuSeconds returns the user plus system CPU time of a finished process,
// in seconds: unlike wall time it does not grow with the load of the
// machine.
func cpuSeconds(ps *os.ProcessState) float64 {
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// selfCPU returns this process's user + system CPU seconds so far.
func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
