package memory_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// A full disk (ENOSPC on every write of the store) makes writes fail with
// ErrReadOnly instead of panicking; reads keep working; once space is
// back, writes resume and nothing acknowledged is lost.
func TestWriteFailureMakesReadOnly(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO} {
		t.Run(errno.Error(), func(t *testing.T) { testWriteFailure(t, errno) })
	}
}

func testWriteFailure(t *testing.T, errno syscall.Errno) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/d\n", "main.go": doctorGo})
	// A full (or failing) disk: writing data fails; opening, locking and
	// creating empty files still work.
	full := &errorfs.Toggle{Injector: errorfs.InjectorFunc(func(op errorfs.Op) error {
		switch op.Kind {
		case errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFilePreallocate,
			errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo, errorfs.OpFileFlush:
			return errno
		}
		return nil
	})}
	var warned []error
	w, err := memory.Open(repo, memory.Options{StoreFS: errorfs.Wrap(vfs.Default, full), Warn: func(err error) { warned = append(warned, err) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	req := func(text string) memory.RememberRequest {
		return memory.RememberRequest{Text: text, Path: filepath.Join(repo, "main.go"), StartLine: 4, EndLine: 6}
	}
	if _, err := w.Remember(ctx, req("before the fault")); err != nil {
		t.Fatal(err)
	}

	full.On()
	for _, text := range []string{"during the fault", "still full"} {
		_, err := w.Remember(ctx, req(text))
		if !errors.Is(err, memory.ErrReadOnly) {
			t.Fatalf("remember on a full disk: %v, want ErrReadOnly", err)
		}
	}
	if len(warned) == 0 {
		t.Error("no warning about the read-only workspace")
	}
	ms, err := w.List()
	if err != nil || len(ms) != 1 {
		t.Fatalf("list while read-only: %d memories, %v", len(ms), err)
	}

	full.Off()
	if _, err := w.Remember(ctx, req("after the fault")); err != nil {
		t.Fatalf("remember after the fault cleared: %v", err)
	}
	if _, err := w.Index(ctx); err != nil {
		t.Fatalf("index after the fault cleared: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w, err = memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ms, err = w.List()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range ms {
		texts = append(texts, m.Body)
	}
	if strings.Join(texts, "|") != "before the fault|after the fault" {
		t.Fatalf("memories after reopening: %q", texts)
	}
}
