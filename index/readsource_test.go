package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadSourceFile(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package a\n")
	write("big.go", strings.Repeat("x", 100))
	write(".git/config", "[core]\n")
	write("sub/.git/HEAD", "ref: x\n")
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(root, "out.go")))
	must(os.Symlink("a.go", filepath.Join(root, "in.go")))
	must(os.Symlink(".git/config", filepath.Join(root, "cfg.go")))
	must(os.Symlink("pipe.go", filepath.Join(root, "pipelink.go")))

	for _, tc := range []struct {
		rel  string
		want error // nil: readable
	}{
		{"a.go", nil},
		{"in.go", nil},
		{"pipe.go", ErrNotRegular},
		{"pipelink.go", ErrNotRegular},
		{"sub", ErrNotRegular},
		{"big.go", ErrTooLarge},
		{"out.go", ErrOutsideRoot},
		{"../x.go", ErrOutsideRoot},
		{"/etc/passwd", ErrOutsideRoot},
		{".git/config", ErrGitDir},
		{"sub/.git/HEAD", ErrGitDir},
		{"cfg.go", ErrGitDir},
		{"missing.go", os.ErrNotExist},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadSourceFile(root, tc.rel, 50)
			done <- err
		}()
		select {
		case err := <-done:
			if tc.want == nil && err != nil {
				t.Errorf("%s: %v", tc.rel, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("%s: error %v, want %v", tc.rel, err, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadSourceFile(%s) blocked", tc.rel)
		}
	}
}
