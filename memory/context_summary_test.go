package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// contextFixture is a workspace with 240 memories in one file (every
// type and source, some pinned, flagged, superseded, stale) read 100
// days after they were written.
func contextFixture(t *testing.T) (*Workspace, string) {
	t.Helper()
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	var src strings.Builder
	src.WriteString("package store\n\n")
	for i := range 40 {
		fmt.Fprintf(&src, "// compact%d merges head blocks.\nfunc compact%d(n int) int {\n\treturn n + %d\n}\n\n", i, i, i)
	}
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/store\n", "head.go": src.String()})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w, err := Open(repo, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	types := []string{"gotcha", "decision", "convention", "pattern", "note", "workflow"}
	sources := []string{"user", "agent", "imported_git", "inferred"}
	var reqs []RememberRequest
	for i := range 240 {
		f := i % 40
		r := RememberRequest{Text: fmt.Sprintf("compaction of head %d: flush blocks before merging (note %d)\n\nThe head compaction waits for %d appenders.", f, i, i%7),
			Path: filepath.Join(repo, "head.go"), StartLine: 3 + 5*f, EndLine: 6 + 5*f, Type: types[i%len(types)], Source: sources[i%len(sources)], Pinned: i%17 == 0}
		if i%3 == 0 {
			r.Path, r.StartLine, r.EndLine, r.Symbol = "", 0, 0, fmt.Sprintf("compact%d", f)
		}
		reqs = append(reqs, r)
	}
	ms, errs := w.RememberBatch(ctx, reqs)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(100 * 24 * time.Hour)
	for i := 0; i < 30; i += 7 {
		if _, err := w.Flag(ms[i].ID, "wrong since the refactor"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Relate(ms[i+1].ID, RelSupersedes, ms[i+2].ID, false); err != nil {
			t.Fatal(err)
		}
	}
	edited := strings.Replace(src.String(), "return n + 3\n", "return n * 3\n", 1)
	testutil.WriteFiles(t, repo, map[string]string{"head.go": edited})
	if _, err := w.CheckViews(ctx); err != nil { // re-resolves and brings summaries up to date
		t.Fatal(err)
	}
	return w, repo
}

// setSummaryFormat records format as the store's summary format.
func setSummaryFormat(t *testing.T, w *Workspace, format uint64) {
	t.Helper()
	b := w.Store.NewMemoryBatch()
	if err := b.SetSummaryFormat(format); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestContextFromSummaries checks that a briefing ranked from summaries
// has the items, order, scores, reasons, diffs, Markdown and (after
// Full) memory views of one ranked from every record.
func TestContextFromSummaries(t *testing.T) {
	w, repo := contextFixture(t)
	if !w.summariesRankable() {
		t.Fatal("summaries are not current after a check")
	}
	req := ContextRequest{Task: "fix the head compaction flush", Files: []string{filepath.Join(repo, "head.go")}, Symbols: []string{"compact3", "compact9"}}
	fromSum, err := w.Context(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WarmPlaces(); err != nil { // the daemon's place table finds the symbols' memories
		t.Fatal(err)
	}
	warm, err := w.Context(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	sameItems(t, warm, fromSum)
	setSummaryFormat(t, w, 1)
	if w.summariesRankable() {
		t.Fatal("summaries of format 1 are rankable")
	}
	fromRec, err := w.Context(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(fromSum) != 240 || len(fromRec) != len(fromSum) {
		t.Fatalf("%d items from summaries, %d from records; want 240", len(fromSum), len(fromRec))
	}
	bySymbol := 0
	for _, it := range fromRec {
		if strings.Contains(strings.Join(it.Reasons, ","), "symbol") {
			bySymbol++
		}
	}
	if bySymbol < 4 { // 4 anchored to the symbols, and spans inside them
		t.Errorf("%d items for the symbols; want at least 4", bySymbol)
	}
	var summaries, stale, superseded int
	for i := range fromSum {
		s, r := fromSum[i], fromRec[i]
		if s.Memory.fromSummary {
			summaries++
		}
		if r.Memory.fromSummary {
			t.Fatalf("item %d read from a summary with summaries of format 1", i)
		}
		if s.Memory.Stale() {
			stale++
		}
		if s.Memory.Superseded() {
			superseded++
		}
		if s.Memory.ID != r.Memory.ID || s.Score != r.Score || s.Diff != r.Diff || strings.Join(s.Reasons, ",") != strings.Join(r.Reasons, ",") {
			t.Fatalf("item %d: from summaries %s %v %.17g, from records %s %v %.17g", i, s.Memory.ID, s.Reasons, s.Score, r.Memory.ID, r.Reasons, r.Score)
		}
		sv, _ := json.Marshal(ViewOf(s.Full().Memory))
		rv, _ := json.Marshal(ViewOf(r.Memory))
		if string(sv) != string(rv) {
			t.Fatalf("item %d: view after Full\n%s\nfrom records\n%s", i, sv, rv)
		}
	}
	if summaries == 0 || stale == 0 || superseded == 0 {
		t.Fatalf("fixture too plain: %d items from summaries, %d stale, %d superseded", summaries, stale, superseded)
	}
	for _, budget := range []int{300, 2000, 100000} {
		smd, sinc, sused := Briefing(req.Task, fromSum, budget)
		rmd, rinc, rused := Briefing(req.Task, fromRec, budget)
		if smd != rmd || len(sinc) != len(rinc) || sused != rused {
			t.Errorf("budget %d: briefing from summaries (%d items, %d tokens) differs from records' (%d, %d)", budget, len(sinc), sused, len(rinc), rused)
		}
	}
}

// TestSummaryHalfLife checks that a summary keeps the memory's half-life
// and that a version 1 summary (without it) still decodes.
func TestSummaryHalfLife(t *testing.T) {
	v := ViewOf(&Memory{ID: "01X", Type: "gotcha", Title: "t", HalfLifeDays: 12.5})
	data, err := encodeSummary(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeSummary(data)
	if err != nil || got.halfLifeDays != 12.5 || got.Lifecycle().HalfLifeDays != 12.5 {
		t.Fatalf("decoded half-life %v, %v; want 12.5", got.halfLifeDays, err)
	}
	v.halfLifeDays = 0
	data, _ = encodeSummary(v)
	v1 := append([]byte{summaryMagicV1}, data[1:len(data)-1]...) // no half-life (0 is one byte)
	got, err = decodeSummary(v1)
	if err != nil || got.Title != "t" || got.halfLifeDays != 0 {
		t.Fatalf("version 1 summary decoded as %+v, %v", got, err)
	}
	if scope, err := summaryScope(v1); err != nil || scope != v.Scope {
		t.Fatalf("summaryScope of a version 1 summary: %q, %v", scope, err)
	}
}

// sameItems fails unless got and want hold the same memories, reasons,
// scores and diffs in the same order.
func sameItems(t *testing.T, got, want []ContextItem) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d items, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Memory.ID != w.Memory.ID || g.Score != w.Score || g.Diff != w.Diff || strings.Join(g.Reasons, ",") != strings.Join(w.Reasons, ",") {
			t.Fatalf("item %d: %s %v %.17g, want %s %v %.17g", i, g.Memory.ID, g.Reasons, g.Score, w.Memory.ID, w.Reasons, w.Score)
		}
	}
}
