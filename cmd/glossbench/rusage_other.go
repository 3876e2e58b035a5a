//go:build !unix

package main

import "os"

// maxRSSMiB is not measured on this platform (0).
func maxRSSMiB(*os.ProcessState) float64 { return 0 }

// cpuSeconds returns the user plus system CPU time of a finished process.
func cpuSeconds(ps *os.ProcessState) float64 {
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// selfCPU is not measured on this platform (0).
func selfCPU() float64 { return 0 }
