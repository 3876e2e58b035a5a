package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"

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
