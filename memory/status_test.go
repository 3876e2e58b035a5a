package memory

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// Status counts from the stored summaries what it counted from the
// decoded records: memories by type, imported ones, stale ones (an
// anchored method edited and checked) and anchors by status.
func TestStatusFromSummaries(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := []RememberRequest{
		{Text: "open note", Path: repo + "/a.go", StartLine: 10, EndLine: 15},
		{Text: "open gotcha", Type: "gotcha", Path: repo + "/a.go", StartLine: 11, EndLine: 12},
		{Text: "imported", Source: SourceImportedGit, Path: repo + "/a.go", StartLine: 10, EndLine: 15},
		{Text: "python", Type: "decision", Path: repo + "/m.py", StartLine: 4, EndLine: 8},
		{Text: "cap", Path: repo + "/a.go", StartLine: 17, EndLine: 17},
	}
	if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil || errs[1] != nil || errs[2] != nil || errs[3] != nil || errs[4] != nil {
		t.Fatal(errs)
	}
	testutil.WriteFiles(t, repo, map[string]string{"a.go": strings.Replace(storedFixture["a.go"], "return a - b, nil", "return b - a + 1, nil", 1)})
	if _, err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if ready, err := w.summariesReady(); err != nil || !ready {
		t.Fatalf("summaries not current after a batch and a check: %v %v", ready, err)
	}
	got, err := w.Status()
	if err != nil {
		t.Fatal(err)
	}
	want := Status{ByStatus: map[string]int{}, ByType: map[string]int{}}
	mems, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mems { // as Status counted before it read summaries
		want.Memories++
		want.ByType[m.Type]++
		imported := m.Source == SourceImportedGit
		if imported {
			want.ImportedGit++
		}
		if m.Stale() {
			want.Stale++
			if imported {
				want.StaleImportedGit++
			}
		}
		for _, a := range m.Anchors {
			want.ByStatus[a.Status]++
		}
	}
	if got.Stale == 0 || got.ImportedGit != 1 || got.Memories != len(reqs) {
		t.Fatalf("counts %+v: want stale memories, one imported, %d memories", got, len(reqs))
	}
	for name, pair := range map[string][2]any{
		"memories": {got.Memories, want.Memories}, "stale": {got.Stale, want.Stale}, "imported": {got.ImportedGit, want.ImportedGit},
		"stale imported": {got.StaleImportedGit, want.StaleImportedGit}, "by type": {got.ByType, want.ByType}, "by status": {got.ByStatus, want.ByStatus},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: %v from the summaries, %v from the records", name, pair[0], pair[1])
		}
	}
}
