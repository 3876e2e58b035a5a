package memory

import (
	"testing"
	"time"
)

func TestCommitClassification(t *testing.T) {
	types := map[string]string{
		"Fix race in the WAL writer":                         "error_pattern",
		"tsdb: fix panic on empty block (#123)":              "error_pattern",
		"Use a ring buffer instead of a slice":               "decision",
		"Add retries\n\nCapped at 3 because upstream limits": "decision",
		"Add the query API":                                  "note",
	}
	for msg, want := range types {
		if got := commitType(msg); got != want {
			t.Errorf("commitType(%q) = %s, want %s", msg, got, want)
		}
	}
	for msg, want := range map[string]bool{
		"fix typo": true, "Fix typos in docs": true, "docs: fix typo": true, "Bump golang.org/x/net from 0.1 to 0.2": true,
		"WIP": true, "Merge branch 'main' into feature": true, "build(deps): bump x": true,
		"Fix overflow in Add": false, "Typed errors for the API": false, "Bumpless transfer": false,
	} {
		if got := noiseMessage(msg); got != want {
			t.Errorf("noiseMessage(%q) = %v, want %v", msg, got, want)
		}
	}
	if !isBot("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com") || !isBot("Renovate Bot", "bot@renovateapp.com") || isBot("Ann", "ann@example.com") {
		t.Error("isBot")
	}
	if got := commitRefs("Fix leak (#42)\n\nFixes #7, see GH-9 and #42; not a#5"); len(got) != 3 || got[0] != "42" || got[1] != "7" || got[2] != "9" {
		t.Errorf("commitRefs = %v, want [42 7 9]", got)
	}
	for remote, want := range map[string]string{
		"git@github.com:prometheus/prometheus.git": "https://github.com/prometheus/prometheus",
		"https://github.com/spf13/cobra":           "https://github.com/spf13/cobra",
		"https://gitlab.com/a/b.git":               "",
	} {
		if got := githubBase(remote); got != want {
			t.Errorf("githubBase(%q) = %q, want %q", remote, got, want)
		}
	}
	if got := commitTitle("Merge pull request #12 from ann/retry\n\nCap retries at three"); got != "Cap retries at three" {
		t.Errorf("merge title = %q", got)
	}
}

func TestCommitMemoryID(t *testing.T) {
	at := time.Date(2020, 5, 1, 0, 0, 0, 0, time.UTC)
	a, err := commitMemoryID("0123456789abcdef0123456789abcdef01234567", at)
	b, _ := commitMemoryID("0123456789abcdef0123456789abcdef01234567", at)
	c, _ := commitMemoryID("1123456789abcdef0123456789abcdef01234567", at)
	if err != nil || a != b || a == c || len(a) != 26 {
		t.Errorf("ids %s %s %s (%v): want equal for one commit, different for another", a, b, c, err)
	}
	if _, err := commitMemoryID("xyz", at); err == nil {
		t.Error("short hash: no error")
	}
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pat, rel string
		want     bool
	}{
		{"tsdb/**", "tsdb/wal/wal.go", true}, {"**/*_test.go", "a/b/c_test.go", true}, {"**/*_test.go", "c_test.go", true},
		{"tsdb", "tsdb/db.go", true}, {"*.go", "a/b.go", false}, {"tsdb/**", "promql/engine.go", false},
	} {
		if got := globMatch(c.pat, c.rel); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pat, c.rel, got)
		}
	}
}

// lineEdits applied to a give b, whatever is shared at the ends.
func TestLineEdits(t *testing.T) {
	for _, c := range [][2]string{
		{"a\nb\nc\nd\n", "a\nB\nc\nD\n"},
		{"a\nb\n", "a\nb\nc\n"},
		{"x\na\nb\n", "a\nb\n"},
		{"same\n", "same\n"},
		{"p\nq", "p\nr"},
	} {
		edits := lineEdits(c[0], c[1])
		got := c[0]
		for i := len(edits) - 1; i >= 0; i-- {
			e := edits[i]
			got = got[:e.Start] + e.New + got[e.End:]
		}
		if got != c[1] {
			t.Errorf("lineEdits(%q, %q) give %q", c[0], c[1], got)
		}
	}
}
