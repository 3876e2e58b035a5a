// Package timing prints when the phases of one gloss process end, for
// measuring where a CLI call spends its wall time (docs/benchmarks.md):
// with $GLOSS_TIMING set to a non-empty value, each Mark writes one line
// to standard error,
//
//	gloss timing: +  12.345 ms  phase
//
// the wall time in milliseconds since this package was initialized
// (early in the process's package initialization, which the runtime's
// own start-up and the packages initialized before it precede: `GODEBUG=inittrace=1`
// shows those). Unset, Mark costs one boolean test. Marks may come from any
// goroutine; lines are written whole (one write each).
package timing

import (
	"fmt"
	"os"
	"time"
)

// Env is the environment variable that turns the marks on.
const Env = "GLOSS_TIMING"

var (
	enabled = os.Getenv(Env) != ""
	start   = time.Now()
)

// Enabled reports whether $GLOSS_TIMING is set, for callers that would
// compute something only to mark it.
func Enabled() bool { return enabled }

// Mark writes the time since start-up and phase (a short label, e.g.
// "pebble open") to standard error when timing is enabled.
func Mark(phase string) {
	if !enabled {
		return
	}
	fmt.Fprintf(os.Stderr, "gloss timing: +%8.3f ms  %s\n", float64(time.Since(start).Microseconds())/1000, phase)
}

// Since writes phase with the milliseconds elapsed since t0 (a phase that
// overlaps others, e.g. on another goroutine) when timing is enabled.
func Since(phase string, t0 time.Time) {
	if !enabled {
		return
	}
	fmt.Fprintf(os.Stderr, "gloss timing: +%8.3f ms  %s (took %.3f ms)\n", float64(time.Since(start).Microseconds())/1000, phase, float64(time.Since(t0).Microseconds())/1000)
}
