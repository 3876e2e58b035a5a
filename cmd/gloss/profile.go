package main

import (
	"fmt"
	"os"
	"runtime"
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

// memProfileEnv names a file that receives a heap profile
// (runtime/pprof "heap" format: in-use and allocated bytes by call site)
// taken when `gloss remember --batch` has sent its last chunk, while the
// workspace is still open, for measuring what an ingest keeps live
// (docs/benchmarks.md). Unset: no profile.
const memProfileEnv = "GLOSS_MEMPROFILE"

// writeMemProfile writes the heap profile named by $GLOSS_MEMPROFILE,
// after a collection so that in-use bytes are current; a failure is
// reported on standard error.
func writeMemProfile() {
	path := os.Getenv(memProfileEnv)
	if path == "" {
		return
	}
	runtime.GC()
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gloss: %s: %v\n", memProfileEnv, err)
	}
}
