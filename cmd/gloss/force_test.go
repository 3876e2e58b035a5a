package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// `gloss index` in a folder that is not a project refuses with a clear
// error; --force indexes it.
func TestIndexNonProjectNeedsForce(t *testing.T) {
	testutil.Hermetic(t)
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(t.TempDir()))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(cliGo), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, dir, "", "--no-daemon", "index")
	if err == nil || !strings.Contains(err.Error(), "not a project") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("index of a non-project folder: %v", err)
	}
	out, _, err := run(t, dir, "", "--no-daemon", "--force", "index")
	if err != nil {
		t.Fatalf("index --force: %v\n%s", err, out)
	}
}
