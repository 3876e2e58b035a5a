package importgit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/importgit"
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
	if res, err := importgit.Run(ctx, w, importgit.Options{}); err != nil || res.Created != 3 {
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
	res, err := importgit.Run(ctx, w, importgit.Options{})
	if err != nil || res.Created != 0 || res.Incremental || res.Skipped[importgit.SkipForgotten] != 2 || res.Skipped[importgit.SkipImported] != 1 {
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
		res, err = importgit.Run(ctx, w, importgit.Options{})
		if err != nil || res.Created != 1 || res.Skipped[importgit.SkipRewritten] != 0 {
			t.Fatalf("commit %d of the same second: %+v, %v; want it created", i, res, err)
		}
	}
}

// A test file moved to the external test package (`package calc` →
// `package calc_test`, which changes every symbol in it) keeps its
// imported memories: an edited test is changed, an untouched one fresh
// (the fixed bug: both were deleted).
func TestImportGitPackageChange(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	test := func(pkg, qual, body string) string {
		imp := ""
		if qual != "" {
			imp = "\t\"example.com/calc\"\n"
		}
		return "package " + pkg + "\n\nimport (\n" + imp + "\t\"testing\"\n)\n\n" +
			"func TestAdd(t *testing.T) {\n\tif " + qual + "Add(1, 2) != " + body + " {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\n" +
			"func TestMul(t *testing.T) {\n\tif " + qual + "Mul(2, 3) != 6 {\n\t\tt.Fatal(\"mul\")\n\t}\n}\n"
	}
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": calc(addV1, subV1, mulV2), "calc_test.go": test("calc", "", "4")})
	commitAt(t, repo, "Initial calculator", 1)
	testutil.WriteFiles(t, repo, map[string]string{"calc_test.go": test("calc", "", "3")})
	commitAt(t, repo, "Fix the expectation of TestAdd", 2)
	testutil.WriteFiles(t, repo, map[string]string{"calc_test.go": strings.Replace(test("calc", "", "3"), "Mul(2, 3) != 6", "Mul(3, 3) != 9", 1)})
	commitAt(t, repo, "Check Mul with equal factors", 3)
	testutil.WriteFiles(t, repo, map[string]string{"calc_test.go": strings.Replace(test("calc_test", "calc.", "3"), "Mul(2, 3) != 6", "Mul(3, 3) != 9", 1)})
	commitAt(t, repo, "Test through the exported API only", 4)
	testutil.WriteFiles(t, repo, map[string]string{"calc_test.go": strings.Replace(test("calc_test", "calc.", "3"), "Mul(2, 3) != 6", "Mul(3, 3) != 9", 1)})
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := importgit.Run(context.Background(), w, importgit.Options{}); err != nil {
		t.Fatal(err)
	}
	mems, _ := w.List()
	checkAnchors(t, mems, map[string]string{
		"Fix the expectation of TestAdd": "TestAdd:changed",
		"Check Mul with equal factors":   "TestMul:changed",
	})
}
