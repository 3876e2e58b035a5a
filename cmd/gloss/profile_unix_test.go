//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCPUProfileCut checks that SIGUSR1 cuts the GLOSS_CPUPROFILE
// profile: the first file is complete (a gzip-compressed pprof profile)
// and the samples after the cut go to PATH.1, written when the profile
// stops.
func TestCPUProfileCut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	t.Setenv(cpuProfileEnv, path)
	stop := startCPUProfile()
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	// The cut runs on the handler's goroutine: wait until it has started
	// the next file (not a timing assertion: it only bounds the wait).
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path + ".1"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("%s.1 not created after SIGUSR1", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	gzipMagic := []byte{0x1f, 0x8b}
	for _, p := range []string{path, path + ".1"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, gzipMagic) {
			t.Errorf("%s: not a pprof profile (%d bytes)", p, len(b))
		}
	}
	if _, err := os.Stat(path + ".2"); !os.IsNotExist(err) {
		t.Errorf("%s.2 exists without a second cut (%v)", path, err)
	}
}
