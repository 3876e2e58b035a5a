package index

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
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

// TestReadAllSized checks readAllSized returns exactly what io.ReadAll
// returns whatever the size hint: exact, too small (a file that grew
// after fstat), too large (one that shrank), zero, and with a reader that
// returns one byte per call or an error after some bytes.
func TestReadAllSized(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 300) // 4,800 bytes
	for _, size := range []int64{0, 1, 511, 512, 4799, 4800, 4801, 10000} {
		for _, n := range []int{0, 1, 700, len(data)} {
			want := data[:n]
			got, err := readAllSized(nil, bytes.NewReader(want), size)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("size %d, %d bytes: got %d bytes, %v", size, n, len(got), err)
			}
			got, err = readAllSized(nil, iotest.OneByteReader(bytes.NewReader(want)), size)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("one byte at a time, size %d, %d bytes: got %d bytes, %v", size, n, len(got), err)
			}
		}
	}
	boom := errors.New("boom")
	got, err := readAllSized(nil, io.MultiReader(bytes.NewReader(data[:100]), iotest.ErrReader(boom)), 100)
	if !errors.Is(err, boom) || !bytes.Equal(got, data[:100]) {
		t.Fatalf("failing reader: got %d bytes, %v; want 100 bytes and boom", len(got), err)
	}
}

// ReadSourceFileInto reads into the buffer it is given when the file fits
// (the result aliases it) and into a new one when not, with
// ReadSourceFile's bytes and checks either way.
func TestReadSourceFileInto(t *testing.T) {
	root := t.TempDir()
	small, big := []byte("package a\n"), bytes.Repeat([]byte("x"), 5000)
	for name, data := range map[string][]byte{"small.go": small, "big.go": big} {
		if err := os.WriteFile(filepath.Join(root, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 0, 1024)
	got, err := ReadSourceFileInto(buf, root, "small.go", 0)
	if err != nil || !bytes.Equal(got, small) || &got[:1][0] != &buf[:1][0] {
		t.Fatalf("small: %q, %v (in the buffer: %v)", got, err, err == nil && &got[:1][0] == &buf[:1][0])
	}
	got, err = ReadSourceFileInto(buf, root, "big.go", 0)
	if err != nil || !bytes.Equal(got, big) || &got[:1][0] == &buf[:1][0] {
		t.Fatalf("big: %d bytes, %v", len(got), err)
	}
	if _, err := ReadSourceFileInto(buf, root, "../outside.go", 0); err == nil {
		t.Fatal("a path outside the root was read")
	}
	if _, err := ReadSourceFileInto(buf, root, "small.go", 5); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the size limit: %v", err)
	}
}
