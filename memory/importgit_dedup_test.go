package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// A forgotten imported memory is never imported again, also after its
// restore window; a commit sharing its author date with an imported one
// but still in the history is a different commit and is imported.
func TestImportGitForgottenAndSameDate(t *testing.T) {
	repo, _ := historyRepo(t)
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	if res, err := w.ImportGit(ctx, memory.ImportGitOptions{}); err != nil || res.Created != 3 {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	byTitle := map[string]*memory.Memory{}
	mems, _ := w.List()
	for _, m := range mems {
		byTitle[m.Title] = m
	}
	mul := byTitle["Multiply directly"]
	if _, err := w.Forget(mul.ID); err != nil {
		t.Fatal(err)
	}
	// A later forget, past the restore window, reduces the imported
	// memory's tombstone instead of dropping it.
	old := memory.RestoreWindow
	memory.RestoreWindow = -time.Second
	defer func() { memory.RestoreWindow = old }()
	if _, err := w.Forget(byTitle["Initial calculator"].ID); err != nil {
		t.Fatal(err)
	}
	if data, err := w.Store.Tombstone(mul.ID); err != nil || len(data) > 400 {
		t.Fatalf("tombstone of the forgotten imported memory: %d bytes, %v; want a small one kept", len(data), err)
	}
	// Rewriting the head forces a full walk over the forgotten commits.
	testutil.Git(t, repo, "commit", "-q", "--amend", "-m", "Document the calculator")
	res, err := w.ImportGit(ctx, memory.ImportGitOptions{})
	if err != nil || res.Created != 0 || res.Incremental || res.Skipped[memory.SkipForgotten] != 2 || res.Skipped[memory.SkipImported] != 1 {
		t.Fatalf("full walk after forgetting two: %+v, %v; want 2 forgotten, 1 already imported, nothing created", res, err)
	}
	// Two commits by the same author in the same second, both in history,
	// imported by two runs.
	for i, msg := range []string{"Handle negative factors in Mul", "Drop the overflow check of Add"} {
		add := addV2
		if i == 1 {
			add = addV1
		}
		testutil.WriteFiles(t, repo, map[string]string{"calc.go": calc(add, subV4, mulV3)})
		commitAt(t, repo, msg, 11)
		res, err = w.ImportGit(ctx, memory.ImportGitOptions{})
		if err != nil || res.Created != 1 || res.Skipped[memory.SkipRewritten] != 0 {
			t.Fatalf("commit %d of the same second: %+v, %v; want it created", i, res, err)
		}
	}
}
