package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sync"
)

// cpuProfileEnv names a file that receives a CPU profile of the whole
// process (runtime/pprof format, `go tool pprof`), for measuring what a
// CLI call costs (docs/benchmarks.md). Unset: no profile.
const cpuProfileEnv = "GLOSS_CPUPROFILE"

// startCPUProfile starts the CPU profile named by $GLOSS_CPUPROFILE and
// returns the function that writes it; a profile that cannot be started
// is reported on standard error and the command runs without it.
//
// Where the platform has SIGUSR1 (profileCutSignals), each SIGUSR1 cuts
// the profile: the samples so far are written to the file and a new
// profile starts in PATH.1, then PATH.2, …, so that a daemon's requests
// can be profiled apart from its start-up work (`kill -USR1 PID` once it
// has settled; docs/benchmarks.md).
func startCPUProfile() func() {
	path := os.Getenv(cpuProfileEnv)
	f := startFile(cpuProfileEnv, pprof.StartCPUProfile)
	if f == nil {
		return func() {}
	}
	var mu sync.Mutex // guards f
	cuts := make(chan os.Signal, 1)
	done := make(chan struct{})
	if sigs := profileCutSignals(); len(sigs) > 0 {
		signal.Notify(cuts, sigs...)
		go func() {
			for n := 1; ; n++ {
				select {
				case <-done:
					return
				case <-cuts:
				}
				mu.Lock()
				if f == nil { // stopped meanwhile
					mu.Unlock()
					return
				}
				pprof.StopCPUProfile()
				f.Close()
				next, err := os.Create(fmt.Sprintf("%s.%d", path, n))
				if err == nil {
					if err = pprof.StartCPUProfile(next); err != nil {
						next.Close()
					}
				}
				if err != nil {
					fmt.Fprintf(os.Stderr, "gloss: %s: %v\n", cpuProfileEnv, err)
					f = nil
					mu.Unlock()
					return
				}
				f = next
				mu.Unlock()
			}
		}()
	}
	return func() {
		signal.Stop(cuts)
		close(done)
		mu.Lock()
		defer mu.Unlock()
		if f != nil {
			pprof.StopCPUProfile()
			f.Close()
			f = nil
		}
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

// traceEnv names a file that receives an execution trace of the whole
// process (runtime/trace format, `go tool trace`): which goroutine ran
// on which core when, for finding the parts of a CLI call that leave a
// core idle (docs/benchmarks.md). Unset: no trace.
const traceEnv = "GLOSS_TRACE"

// startTrace starts the execution trace named by $GLOSS_TRACE and returns
// the function that stops it; a trace that cannot be started is reported
// on standard error and the command runs without it.
func startTrace() func() {
	f := startFile(traceEnv, trace.Start)
	if f == nil {
		return func() {}
	}
	return func() {
		trace.Stop()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "gloss: %s: %v\n", traceEnv, err)
		}
	}
}

// startFile creates the file named by $env and starts writing a profile
// or trace to it with start (pprof.StartCPUProfile, trace.Start). It
// returns nil when env is unset, and when the file cannot be created or
// start fails, which it reports on standard error (the command runs
// without it).
func startFile(env string, start func(io.Writer) error) *os.File {
	path := os.Getenv(env)
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err == nil {
		if err = start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gloss: %s: %v\n", env, err)
		return nil
	}
	return f
}
