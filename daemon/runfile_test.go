package daemon

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// Issue 17: a <key>.lock symlink placed in the run directory was followed
// and its target truncated. The daemon now refuses it and the target is
// untouched.
func TestLockSymlinkRefused(t *testing.T) {
	e := newEnv(t, inProcess)
	root := newRepo(t, map[string]string{"calc.go": fixtureA})
	paths, err := PathsFor(e.home, memory.ProjectID(root))
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, paths.Lock); err != nil {
		t.Fatal(err)
	}
	d, err := Start(Config{Dir: root, Memory: memOpts(e.home), Log: io.Discard})
	if err == nil {
		d.Close()
		t.Fatal("Start followed a symlinked lock file")
	}
	if !strings.Contains(err.Error(), "symlink") {
		t.Errorf("error %q should say the lock is a symlink", err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("symlink target changed to %q", data)
	}
	if _, err := openRunFile(paths.Lock, os.O_RDWR|os.O_CREATE); err == nil {
		t.Error("openRunFile followed a symlink")
	}
	fifo := filepath.Join(paths.Dir, "x.log")
	if err := mkfifo(fifo); err == nil {
		if _, err := openRunFile(fifo, os.O_RDWR|os.O_CREATE); err == nil {
			t.Error("openRunFile opened a FIFO")
		}
	}
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
