// Package testutil builds hermetic git fixture repositories for tests.
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Hermetic points HOME, GLOSS_HOME and git's configuration at temporary
// directories so tests never read the developer's settings, and returns
// the GLOSS_HOME it set.
func Hermetic(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "Test Author")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test Author")
	t.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
	t.Setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
	t.Setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
	gh := filepath.Join(home, "gloss-home")
	t.Setenv("GLOSS_HOME", gh)
	// Daemon sockets go under GLOSS_HOME/run, not the user's runtime dir.
	t.Setenv("XDG_RUNTIME_DIR", "")
	return gh
}

// Git runs git in dir and returns its trimmed output, failing the test on
// error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "core.hooksPath=/dev/null", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// WriteFiles writes files (slash paths relative to dir → content).
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Commit stages everything in dir and commits it, returning the commit id.
func Commit(t testing.TB, dir, msg string) string {
	t.Helper()
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", msg)
	return Git(t, dir, "rev-parse", "HEAD")
}

// InitRepo creates an empty git repository in a new temporary directory.
func InitRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q")
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// DefLines returns the 1-based first and last line of the definition whose
// first line contains marker: from that line to the line before the next
// blank line (or the end of content). It fails when marker is absent.
func DefLines(t testing.TB, content, marker string) (int, int) {
	t.Helper()
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		if strings.Contains(l, marker) {
			j := i
			for j+1 < len(lines) && strings.TrimSpace(lines[j+1]) != "" {
				j++
			}
			return i + 1, j + 1
		}
	}
	t.Fatalf("marker %q not found", marker)
	return 0, 0
}

// LineOf returns the 1-based line of the first line containing marker.
func LineOf(t testing.TB, content, marker string) int {
	t.Helper()
	for i, l := range strings.Split(content, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("marker %q not found", marker)
	return 0
}
