package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a file that receives a CPU profile of the whole
// process (runtime/pprof format, `go tool pprof`), for measuring what a
// CLI call costs (docs/benchmarks.md). Unset: no profile.
const cpuProfileEnv = "GLOSS_CPUPROFILE"

// startCPUProfile starts the CPU profile named by $GLOSS_CPUPROFILE and
// returns the function that writes it; a profile that cannot be started
// is reported on standard error and the command runs without it.
func startCPUProfile() func() {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gloss: %s: %v\n", cpuProfileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
