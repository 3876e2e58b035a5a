package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestMovedAndChanged: a method moved to another file of the same package
// and changed there is found by its SCIP symbol and reported changed at its
// new place (not deleted).
func TestMovedAndChanged(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{
		"go.mod": "module example.com/r\n\ngo 1.22\n",
		"a.go":   "package r\n\ntype R struct{}\n\nfunc (r *R) Report(x int) {\n\tc := x * 2\n\tif c > 10 {\n\t\tprintln(c - 10)\n\t}\n\tprintln(c + x)\n}\n",
	})
	ctx := context.Background()
	m, err := w.Remember(ctx, memory.RememberRequest{Text: "memo", Path: filepath.Join(repo, "a.go"), StartLine: 5, EndLine: 11})
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFiles(t, repo, map[string]string{
		"a.go": "package r\n\ntype R struct{}\n",
		"b.go": "package r\n\nfunc (r *R) Report(x int) {\n\tc := x * 3\n\tif c > 10 {\n\t\tprintln(c - 10)\n\t}\n\tprintln(c + x)\n}\n",
	})
	if _, err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := w.Get(m.ID)
	a := got.Anchors[0]
	if a.Status != memory.StatusChanged || a.Path != "b.go" || a.Range.StartLine+1 != 3 || a.Range.LastLine()+1 != 9 {
		t.Errorf("got %s at %s:%d-%d, want changed at b.go:3-9", a.Status, a.Path, a.Range.StartLine+1, a.Range.LastLine()+1)
	}
}
