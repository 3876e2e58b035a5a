package memory_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestMain lets this test binary act as a writer process for the crash
// test: with GLOSS_CRASH_CHILD set it remembers memories in a loop,
// printing each id only after Remember returned (the acknowledgement);
// GLOSS_CRASH_BULK=1 opens its store as `remember --batch` does
// (memory.Options.StoreBulk).
func TestMain(m *testing.M) {
	if dir := os.Getenv("GLOSS_CRASH_CHILD"); dir != "" {
		w, err := memory.Open(dir, memory.Options{StoreBulk: os.Getenv("GLOSS_CRASH_BULK") == "1"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for i := 0; ; i++ {
			mem, err := w.Remember(context.Background(), memory.RememberRequest{Text: fmt.Sprintf("crash note %d", i), Path: filepath.Join(dir, "a.go"), StartLine: 3, EndLine: 5})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			fmt.Println(mem.ID)
		}
	}
	os.Exit(m.Run())
}

// TestCrashKeepsAcknowledged kills a writer process with SIGKILL while it
// is remembering and checks that every memory it acknowledged is in the
// store afterwards, and that the store opens cleanly: with Pebble's
// default options and with the bulk ones of `remember --batch`.
func TestCrashKeepsAcknowledged(t *testing.T) {
	for _, bulk := range []bool{false, true} {
		t.Run(fmt.Sprintf("bulk=%v", bulk), func(t *testing.T) { crashKeepsAcknowledged(t, bulk) })
	}
}

func crashKeepsAcknowledged(t *testing.T, bulk bool) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"a.go": "package a\n\nfunc A() int {\n\treturn 1\n}\n"})
	testutil.Commit(t, repo, "init")
	var acked []string
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "GLOSS_CRASH_CHILD="+repo, "GLOSS_CRASH_BULK="+map[bool]string{false: "0", true: "1"}[bulk])
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		deadline := time.Now().Add(20 * time.Second)
		n := 0
		for sc.Scan() && n < 40+round*17 && time.Now().Before(deadline) {
			acked = append(acked, strings.TrimSpace(sc.Text()))
			n++
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		if n == 0 {
			t.Fatalf("child acknowledged nothing: %s", stderr.String())
		}
	}
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer w.Close()
	lost := 0
	for _, id := range acked {
		if _, err := w.Get(id); err != nil {
			lost++
			t.Errorf("acknowledged memory %s lost: %v", id, err)
		}
	}
	t.Logf("%d acknowledged memories across 3 SIGKILLed writers, %d lost", len(acked), lost)
	// The derived search index is rebuilt to agree with the store.
	hits, err := w.Search(context.Background(), "crash note", 1000)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := w.List()
	if len(hits) != len(all) {
		t.Errorf("search finds %d memories, store has %d", len(hits), len(all))
	}
}
