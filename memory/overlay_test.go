package memory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// TestResolveDocument resolves anchors against successive unsaved versions
// of open documents (re-parsed incrementally): a moved function, a changed
// token, a function deleted in the buffer while the disk still has it, and
// a plain-text document edited twice.
func TestResolveDocument(t *testing.T) {
	goSrc := "package a\n\n// F adds.\nfunc F(a int) int {\n\treturn a + 1\n}\n\nfunc G() {}\n"
	w, repo := indexedWorkspace(t, map[string]string{"a.go": goSrc, "notes.txt": "alpha\nbeta gamma\n"})
	ctx := context.Background()
	goPath, txtPath := filepath.Join(repo, "a.go"), filepath.Join(repo, "notes.txt")
	if _, err := w.Remember(ctx, memory.RememberRequest{Text: "F note", Path: goPath, StartLine: 4, EndLine: 6}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Remember(ctx, memory.RememberRequest{Text: "txt note", Path: txtPath, StartLine: 2}); err != nil {
		t.Fatal(err)
	}
	status := func(path, content string) (string, int) {
		t.Helper()
		ms, err := w.ResolveDocument(path, []byte(content))
		if err != nil || len(ms) != 1 {
			t.Fatalf("ResolveDocument: %v (%d memories)", err, len(ms))
		}
		a := ms[0].Anchors[0]
		return a.Status, a.Range.StartLine + 1
	}
	steps := []struct {
		content, status string
		line            int
	}{
		{"package a\n\n\n// F adds.\nfunc F(a int) int {\n\treturn a + 1\n}\n\nfunc G() {}\n", memory.StatusMoved, 5},
		{"package a\n\n\n// F adds.\nfunc F(a int) int {\n\treturn a + 2\n}\n\nfunc G() {}\n", memory.StatusChanged, 5},
		{"package a\n\nfunc G() {}\n", memory.StatusDeleted, 4},
		{goSrc, memory.StatusFresh, 4},
	}
	for i, st := range steps {
		if s, l := status(goPath, st.content); s != st.status || l != st.line {
			t.Errorf("go step %d: %s at line %d, want %s at %d", i, s, l, st.status, st.line)
		}
	}
	for i, st := range []struct {
		content, status string
		line            int
	}{
		{"intro\nalpha\nbeta gamma\n", memory.StatusMoved, 3},
		{"intro\nalpha\nbeta delta\n", memory.StatusChanged, 3},
	} {
		if s, l := status(txtPath, st.content); s != st.status || l != st.line {
			t.Errorf("txt step %d: %s at line %d, want %s at %d", i, s, l, st.status, st.line)
		}
	}
	// Nothing was stored: the store still has the memories fresh.
	all, _ := w.List()
	for _, m := range all {
		if m.Stale() || !strings.Contains(m.Body, "note") {
			t.Errorf("overlay resolution changed the store: %+v", m.Anchors[0])
		}
	}
}
