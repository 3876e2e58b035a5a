package memory

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// Review, Prune and StaleMemories judge memories from their stored
// summaries, then read the records of those they keep: what they select
// is what judging every record selected, for memories expired, flagged, conflicting,
// stale, pinned, imported from git, of low confidence and unused (a year
// later), and the items are the records'. RecentMemories (summaries'
// update times, then n records) lists what sorting every record does.
func TestSelectFromSummariesAsRecords(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := start
	w.now = func() time.Time { return now }
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	var reqs []RememberRequest
	for i, kind := range []string{"note", "gotcha", "decision", "convention", "workflow", "note", "gotcha", "note"} {
		req := RememberRequest{Text: fmt.Sprintf("%s %d", kind, i), Type: kind, Path: repo + "/a.go", StartLine: 10, EndLine: 15}
		switch i {
		case 1:
			req.StartLine, req.EndLine = 17, 17
		case 2:
			req.Pinned = true
		case 3:
			req.Source = SourceImportedGit
		case 4:
			req.ExpiresAt = start.Add(24 * time.Hour)
		case 5:
			req.Source = "agent"
			req.Path, req.StartLine, req.EndLine = repo+"/m.py", 4, 8
		}
		reqs = append(reqs, req)
	}
	ms, errs := w.RememberBatch(ctx, reqs)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	now = start.Add(time.Hour)
	if _, err := w.Flag(ms[6].ID, "wrong"); err != nil {
		t.Fatal(err)
	}
	now = start.Add(2 * time.Hour)
	if _, err := w.Relate(ms[7].ID, "conflicts_with", ms[1].ID, false); err != nil {
		t.Fatal(err)
	}
	now = start
	all, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].UpdatedAt.Unix() > all[j].UpdatedAt.Unix() })
	for _, n := range []int{0, 1, 3, len(all), -1} {
		got, err := w.RecentMemories(n)
		if err != nil {
			t.Fatal(err)
		}
		want := all
		if n >= 0 {
			want = all[:n]
		}
		if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("RecentMemories(%d): %d memories, want %d (first %v)", n, len(got), len(want), ids(got))
		}
	}
	if got, _ := w.RecentMemories(2); len(got) != 2 || got[0].ID != ms[7].ID && got[0].ID != ms[1].ID {
		t.Fatalf("RecentMemories(2) = %v: the related memory first", ids(got))
	}
	w.RecordAccess(ms[5].ID)
	if err := w.FlushAccess(); err != nil {
		t.Fatal(err)
	}
	selected := func(keep func(*Memory) bool) (fromSummaries, fromRecords []*Memory) {
		t.Helper()
		if !w.summariesRankable() {
			t.Fatal("summaries not current")
		}
		got, err := w.selectMemories(keep)
		if err != nil {
			t.Fatal(err)
		}
		mems, err := w.List()
		if err != nil {
			t.Fatal(err)
		}
		stats, err := w.Accesses()
		if err != nil {
			t.Fatal(err)
		}
		ApplyAccess(mems, stats)
		var want []*Memory
		for _, m := range mems {
			if keep(m) {
				want = append(want, m)
			}
		}
		return got, want
	}
	for stage, later := range []time.Duration{0, 48 * time.Hour, 400 * 24 * time.Hour} {
		if stage == 2 {
			testutil.WriteFiles(t, repo, map[string]string{"a.go": strings.Replace(storedFixture["a.go"], "return a - b, nil", "return b - a + 1, nil", 1)})
			if _, err := w.Check(ctx); err != nil {
				t.Fatal(err)
			}
		}
		now = start.Add(later)
		review := func(m *Memory) bool { _, ok := reviewOf(m, now); return ok }
		prune := func(m *Memory) bool { return expired(m, now) || prunableUnused(m, now) }
		for name, keep := range map[string]func(*Memory) bool{"review": review, "prune": prune, "stale": (*Memory).Stale} {
			got, want := selected(keep)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("stage %d, %s: %d selected from the summaries, %d from the records", stage, name, len(got), len(want))
			}
			if stage == 2 && len(want) < 4 {
				t.Fatalf("stage %d, %s: only %d memories selected", stage, name, len(want))
			}
		}
		stale, err := w.StaleMemories()
		if err != nil {
			t.Fatal(err)
		}
		if _, want := selected((*Memory).Stale); !reflect.DeepEqual(stale, want) || (stage == 2 && len(want) == 0) {
			t.Fatalf("stage %d: StaleMemories gave %d memories, the records %d", stage, len(stale), len(want))
		}
		items, err := w.Review(0)
		if err != nil {
			t.Fatal(err)
		}
		reasons := map[string]bool{}
		for _, it := range items {
			reasons[it.Reason] = true
		}
		if stage == 2 {
			for _, r := range []string{ReasonExpired, ReasonNeedsReview, ReasonConflicting, ReasonStale, ReasonLowConfidence} {
				if !reasons[r] {
					t.Errorf("stage 2: no %s item in %v", r, reasons)
				}
			}
		}
	}
	// A write to a stale memory deletes its path's check state: the path
	// is read again, and its stale memories still found.
	stale, err := w.StaleMemories()
	if err != nil || len(stale) == 0 {
		t.Fatalf("no stale memory to flag: %v", err)
	}
	if _, err := w.Flag(stale[0].ID, "still wrong"); err != nil {
		t.Fatal(err)
	}
	got, err := w.StaleMemories()
	if err != nil {
		t.Fatal(err)
	}
	if _, want := selected((*Memory).Stale); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a flag: StaleMemories gave %d memories, the records %d", len(got), len(want))
	}
}

func ids(ms []*Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// eachDocMemories, built from the summaries (in chunks of 3 and 1), give every memory the training
// unit and vector document its record gives: tags, several anchors, a
// symbol, an unanchored memory, escaped text.
func TestDocMemoriesAsRecords(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	for _, req := range []RememberRequest{
		{Text: "pool <open> & close", Path: repo + "/a.go", StartLine: 10, EndLine: 15, Tags: []string{"db", "pool"}},
		{Text: "python get", Type: "gotcha", Path: repo + "/m.py", StartLine: 4, EndLine: 8},
		{Text: "nowhere in particular", Unanchored: true},
		{Text: "widget", Symbol: "Widget"},
	} {
		if _, err := w.Remember(ctx, req); err != nil {
			t.Fatalf("%s: %v", req.Text, err)
		}
	}
	if _, err := w.CheckSummaries(ctx); err != nil { // summaries current
		t.Fatal(err)
	}
	if !w.summariesRankable() {
		t.Fatal("summaries not current")
	}
	var got []*Memory
	err := w.eachDocMemories(3, func(mems []*Memory) error { // chunks of 3 and 1
		got = append(got, mems...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != 4 {
		t.Fatalf("%d memories from the summaries, %d records", len(got), len(want))
	}
	for i := range want {
		if gu, wu := memoryUnit(got[i]), memoryUnit(want[i]); gu != wu {
			t.Errorf("memory %s: unit %+v from the summary, %+v from the record", want[i].ID, gu, wu)
		}
	}
	if g, w := vectorDocs(got), vectorDocs(want); !reflect.DeepEqual(g, w) {
		t.Errorf("vector documents differ:\n%v\n%v", g, w)
	}
}
