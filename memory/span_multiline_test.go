package memory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// spanFile is a Go file with a raw string over several lines (lines 3–6)
// and a function whose body line (line 10) is also a line of another raw
// string (line 14).
const spanFile = "package x\n\nconst help = `Usage of the tool\nfirst line of help text\nsecond line of help text\nlast line`\n\n// F adds one.\nfunc F(n int) int {\n\treturn n + 1\n}\n\nconst sample = `\n\treturn n + 1\n`\n"

// A span whose first or last line lies inside a token of several lines
// (a Go raw string) is anchored with that token cut at its lines; lines
// inserted above it move it (it used to be reported changed: its cut
// tokens were looked for among whole tokens), an edit of its lines
// changes it, and a changed span whose words are found inside some other
// string is not moved there. A blank line, placed by its context, is
// moved too, not changed.
func TestSpanInMultiLineTokenMoves(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"go.mod": "module example.com/x\n", "a.go": spanFile})
	ctx := context.Background()
	path := filepath.Join(repo, "a.go")
	remember := func(first, last int) *memory.Memory {
		t.Helper()
		m, err := w.Remember(ctx, memory.RememberRequest{Text: "lines", Path: path, StartLine: first, EndLine: last})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	inside, start, end, body, blank := remember(4, 5), remember(3, 4), remember(6, 8), remember(10, 10), remember(7, 7)
	check := func(stage string, want map[*memory.Memory][3]any) {
		t.Helper()
		if _, err := w.Check(ctx); err != nil {
			t.Fatal(err)
		}
		for m, wa := range want {
			got, err := w.Get(m.ID)
			if err != nil {
				t.Fatal(err)
			}
			a := got.Anchors[0]
			if a.Status != wa[0] || a.Range.StartLine+1 != wa[1] || a.Range.LastLine()+1 != wa[2] {
				t.Errorf("%s: span made at lines %d-%d: %s at %d-%d, want %s at %d-%d", stage, m.Anchors[0].Range.StartLine+1, m.Anchors[0].Range.LastLine()+1,
					a.Status, a.Range.StartLine+1, a.Range.LastLine()+1, wa[0], wa[1], wa[2])
			}
		}
	}
	testutil.WriteFiles(t, repo, map[string]string{"a.go": "// Package x.\n// More.\n" + spanFile})
	check("two lines inserted above", map[*memory.Memory][3]any{
		inside: {memory.StatusMoved, 6, 7}, start: {memory.StatusMoved, 5, 6}, end: {memory.StatusMoved, 8, 10}, body: {memory.StatusMoved, 12, 12}, blank: {memory.StatusMoved, 9, 9}})
	edited := strings.Replace(spanFile, "second line of help text", "second line of HELP text", 1)
	edited = strings.Replace(edited, "\treturn n + 1\n}", "\treturn n + 2\n}", 1)
	testutil.WriteFiles(t, repo, map[string]string{"a.go": "// Package x.\n// More.\n" + edited})
	check("a line of the string and the body edited", map[*memory.Memory][3]any{
		inside: {memory.StatusChanged, 6, 7}, start: {memory.StatusMoved, 5, 6}, end: {memory.StatusMoved, 8, 10}, body: {memory.StatusChanged, 12, 12}, blank: {memory.StatusMoved, 9, 9}})
}
