package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// Imported commits render one line each, newest first, then "+N older".
func TestWriteHistory(t *testing.T) {
	var hs []memory.Hit
	for i := range 7 {
		m := &memory.Memory{Type: "note", Title: fmt.Sprintf("commit %d", i), Author: "Ann", Source: "imported_git",
			CreatedAt: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)}
		status := memory.StatusFresh
		if i == 6 {
			status = memory.StatusChanged
		}
		hs = append(hs, memory.Hit{Memory: m, Anchor: memory.Anchor{Status: status}})
	}
	var b strings.Builder
	writeHistory(&b, hs, 5)
	got := b.String()
	want := "**gloss · history** — 7 commits\n" +
		"\n- 2026-01-07 · note · **commit 6** — Ann · ⚠ changed since" +
		"\n- 2026-01-06 · note · **commit 5** — Ann" +
		"\n- 2026-01-05 · note · **commit 4** — Ann" +
		"\n- 2026-01-04 · note · **commit 3** — Ann" +
		"\n- 2026-01-03 · note · **commit 2** — Ann" +
		"\n\n_+2 older_"
	if got != want {
		t.Errorf("history:\n%s\nwant:\n%s", got, want)
	}
}

// gloss.importGit over executeCommand reports $/progress and its
// memories show in the hover as history lines.
func TestImportGitCommand(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	testutil.WriteFiles(t, root, map[string]string{"main.go": strings.Replace(mainGo, "for i := 0", "for i := 1", 1)})
	testutil.Commit(t, root, "Start retries at one because the first try is not a retry")
	c := start(t, root, clientOpts{})
	var res api.ImportGitResult
	if err := c.command("gloss.importGit", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Created < 1 {
		t.Fatalf("importGit: %+v", res)
	}
	c.mu.Lock()
	events := strings.Join(c.events, " ")
	c.mu.Unlock()
	if !strings.Contains(events, "$/progress:begin") || !strings.Contains(events, "$/progress:report") || strings.Count(events, "$/progress:end") < 2 {
		t.Errorf("events %s: want the import's $/progress begin, report and end", events)
	}
	// The initial commit's memory is stale (the loop changed since) but
	// history gets no diagnostic.
	c.open("main.go", strings.Replace(mainGo, "for i := 0", "for i := 1", 1))
	if ds := c.waitDiags(c.uri("main.go"), func([]Diagnostic) bool { return true }); len(ds) != 0 {
		t.Errorf("diagnostics %+v: want none for imported memories", ds)
	}
	line := testutil.LineOf(t, mainGo, "for i := 0") - 1
	h := c.hover("main.go", Position{Line: line, Character: 3})
	if h == nil || !strings.Contains(h.Contents.Value, "**gloss · history**") || !strings.Contains(h.Contents.Value, "Start retries at one") {
		t.Errorf("hover %+v: want the imported commit as a history line", h)
	}
}
