package fuzzci

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// targets are the fuzz tests TestFuzz runs: package directory relative to
// the module root and fuzz test name. index's FuzzReparse is left out: it
// is too slow for a CI time slice.
var targets = []struct{ pkg, name string }{
	{"internal/lspconn", "FuzzStream"},
	{"memory", "FuzzParseMemoryFile"},
	{"cmd/gloss", "FuzzParseLocation"},
	{"internal/secret", "FuzzFind"},
	{"cmd/gloss", "FuzzBatchLine"},
	{"cmd/gloss", "FuzzDecodeBatchLineAsStd"},
	{"scip", "FuzzParse"},
	{"internal/jsonenc", "FuzzAppendString"},
	{"memory", "FuzzAppendRecordAsMarshal"},
}

// crasherRE finds the file a failing fuzz run wrote its input to, in
// "Failing input written to testdata/fuzz/FuzzX/0123abcd".
var crasherRE = regexp.MustCompile(`testdata/fuzz/[^\s]+`)

func TestFuzz(t *testing.T) {
	fuzzTime := os.Getenv("GLOSS_FUZZ_TIME")
	if fuzzTime == "" && os.Getenv("CI") != "true" {
		t.Skip("set CI=true or GLOSS_FUZZ_TIME (e.g. GLOSS_FUZZ_TIME=30s) to run the fuzz targets")
	}
	if testing.Short() {
		t.Skip("fuzzing is skipped under -short")
	}
	if fuzzTime == "" {
		fuzzTime = "10s"
	}
	root := moduleRoot(t)
	// Leave time to report a hung target before go test's own timeout
	// panics without its output.
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-30*time.Second))
		defer cancel()
	}
	for _, tg := range targets {
		t.Run(tg.pkg+"/"+tg.name, func(t *testing.T) {
			args := []string{"test", "-run=^$", "-fuzz=^" + tg.name + "$", "-fuzztime=" + fuzzTime, "-parallel=2", "./" + tg.pkg}
			var out []byte
			var err error
			for try := 1; try <= 3; try++ {
				cmd := exec.CommandContext(ctx, "go", args...)
				cmd.Dir = root
				cmd.WaitDelay = 10 * time.Second
				start := time.Now()
				out, err = cmd.CombinedOutput()
				t.Logf("go %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Second))
				if !engineDeadline(err, out) {
					break
				}
				// The fuzzing engine itself, on a loaded machine, can end a
				// run at -fuzztime with "context deadline exceeded" and no
				// failing input: that is not a finding, so run again.
				t.Logf("try %d ended with the engine's own deadline error and no failing input; running again", try)
			}
			if err != nil {
				msg := "go " + strings.Join(args, " ") + " failed: " + err.Error()
				if crasher := crasherRE.Find(out); crasher != nil {
					msg += "\ncrasher: " + filepath.Join(root, tg.pkg, string(crasher)) + " (commit it to keep it as a regression test)"
				}
				if ctx.Err() != nil {
					msg += "\nstopped before go test's -timeout; raise -timeout or lower GLOSS_FUZZ_TIME"
				}
				t.Fatalf("%s\n%s", msg, out)
			}
			// A renamed or deleted target makes go test pass with a warning.
			if strings.Contains(string(out), "no fuzz tests to fuzz") {
				t.Fatalf("%s has no fuzz test %s: update the targets table\n%s", tg.pkg, tg.name, out)
			}
		})
	}
}

// engineDeadline reports whether a fuzz run failed only with the fuzzing
// engine's "context deadline exceeded" at the end of -fuzztime, with no
// failing input written.
func engineDeadline(err error, out []byte) bool {
	return err != nil && strings.Contains(string(out), "context deadline exceeded") && crasherRE.Find(out) == nil
}

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatalf("not inside a Go module (go env GOMOD = %q)", gomod)
	}
	return filepath.Dir(gomod)
}
