package importgit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/importgit"
)

// calc returns the fixture's calc.go with the given bodies of Add, Sub
// and Mul.
func calc(add, sub, mul string) string {
	return "package calc\n\nimport \"errors\"\n\nvar errNeg = errors.New(\"negative\")\n\n" +
		"// Add adds.\nfunc Add(a, b int) int {\n" + add + "\n}\n\n" +
		"// Sub subtracts.\nfunc Sub(a, b int) (int, error) {\n" + sub + "\n}\n\n" +
		"// Mul multiplies.\nfunc Mul(a, b int) int {\n" + mul + "\n}\n"
}

const (
	addV1 = "\treturn a + b"
	addV2 = "\tif a > 0 && b > 0 && a+b < 0 {\n\t\tpanic(\"overflow\")\n\t}\n\treturn a + b"
	subV1 = "\tif a < b {\n\t\treturn 0, errors.New(\"negatve result\")\n\t}\n\treturn a - b, nil"
	subV2 = "\tif a < b {\n\t\treturn 0, errors.New(\"negative result\")\n\t}\n\treturn a - b, nil"
	subV3 = "\tif a < b {\n\n\t\treturn 0,   errors.New(\"negative result\") // say why\n\t}\n\treturn a - b, nil"
	subV4 = "\tif a < b {\n\t\treturn 0, errNeg\n\t}\n\treturn a - b, nil"
	mulV1 = "\tr := 0\n\tfor i := 0; i < b; i++ {\n\t\tr += a\n\t}\n\treturn r"
	mulV2 = "\treturn a * b"
	mulV3 = "\tif b < 0 {\n\t\treturn -Mul(a, -b)\n\t}\n\treturn a * b"
)

// commitAt commits everything in repo with msg at a date (so that
// commits are ordered in time) and returns the commit id.
func commitAt(t *testing.T, repo, msg string, day int) string {
	t.Helper()
	date := fmt.Sprintf("2026-01-%02dT10:00:00Z", day)
	t.Setenv("GIT_AUTHOR_DATE", date)
	t.Setenv("GIT_COMMITTER_DATE", date)
	return testutil.Commit(t, repo, msg)
}

// historyRepo builds the fixture history: a first commit, a fix, a
// decision, a typo commit, a formatting-only commit, a bot commit, a huge
// commit, a merge and a documentation-only commit. It returns the repo
// and the commits that must become memories (initial, fix, decision).
func historyRepo(t *testing.T) (repo string, want map[string]string) {
	testutil.Hermetic(t)
	repo = testutil.InitRepo(t)
	testutil.Git(t, repo, "checkout", "-q", "-b", "main")
	testutil.Git(t, repo, "remote", "add", "origin", "git@github.com:acme/calc.git")
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": calc(addV1, subV1, mulV1)})
	want = map[string]string{}
	want[commitAt(t, repo, "Initial calculator", 1)] = "note"
	testutil.WriteFiles(t, repo, map[string]string{"calc.go": calc(addV2, subV1, mulV1)})
	want[commitAt(t, repo, "Fix overflow in Add (#12)\n\nLarge inputs wrapped around silently.", 2)] = "error_pattern"
	testutil.WriteFiles(t, repo, map[string]string{"calc.go": calc(addV2, subV1, mulV2)})
	want[commitAt(t, repo, "Multiply directly\n\nUse the operator instead of a loop because the loop was O(b).", 3)] = "decision"
	testutil.WriteFiles(t, repo, map[string]string{"calc.go": calc(addV2, subV2, mulV2)})
	commitAt(t, repo, "fix typo", 4)
	testutil.WriteFiles(t, repo, map[string]string{"calc.go": calc(addV2, subV3, mulV2)})
	commitAt(t, repo, "Tidy Sub", 5)
	testutil.WriteFiles(t, repo, map[string]string{"calc.go": calc(addV2, subV4, mulV2)})
	t.Setenv("GIT_AUTHOR_NAME", "dependabot[bot]")
	commitAt(t, repo, "Use the shared error value", 6)
	t.Setenv("GIT_AUTHOR_NAME", "Test Author")
	var gen strings.Builder
	gen.WriteString("package calc\n")
	for i := range 30 {
		fmt.Fprintf(&gen, "\nfunc F%d() int { return %d }\n", i, i)
	}
	testutil.WriteFiles(t, repo, map[string]string{"gen.go": gen.String()})
	commitAt(t, repo, "Generate constants", 7)
	testutil.Git(t, repo, "checkout", "-q", "-b", "feature")
	testutil.WriteFiles(t, repo, map[string]string{"div.go": "package calc\n\n// Div divides.\nfunc Div(a, b int) int {\n\treturn a / b\n}\n"})
	commitAt(t, repo, "Add Div", 8)
	testutil.Git(t, repo, "checkout", "-q", "main")
	t.Setenv("GIT_AUTHOR_DATE", "2026-01-09T10:00:00Z")
	t.Setenv("GIT_COMMITTER_DATE", "2026-01-09T10:00:00Z")
	testutil.Git(t, repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature")
	testutil.WriteFiles(t, repo, map[string]string{"README.md": "# calc\n"})
	commitAt(t, repo, "Document the package", 10)
	return repo, want
}

func TestImportGit(t *testing.T) {
	repo, want := historyRepo(t)
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	res, err := importgit.Run(ctx, w, importgit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantSkips := map[string]int{importgit.SkipMessage: 1, importgit.SkipFormatting: 1, importgit.SkipBot: 1, importgit.SkipHuge: 1, importgit.SkipMerge: 1, importgit.SkipNoDefinitions: 1}
	if res.Commits != 9 || res.Created != 3 || fmt.Sprint(res.Skipped) != fmt.Sprint(wantSkips) {
		t.Fatalf("commits %d, created %d, skipped %v; want 9, 3, %v", res.Commits, res.Created, res.Skipped, wantSkips)
	}
	mems, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	byCommit := map[string]*memory.Memory{}
	for _, m := range mems {
		byCommit[m.GitCommit] = m
	}
	for c, typ := range want {
		m := byCommit[c]
		if m == nil {
			t.Fatalf("no memory of commit %s", c)
		}
		if m.Type != typ || m.Source != "imported_git" || m.Author != "Test Author" {
			t.Errorf("memory of %s: type %s, source %s, author %s; want %s, imported_git, Test Author", c, m.Type, m.Source, m.Author, typ)
		}
	}
	checkAnchors(t, mems, map[string]string{
		"Initial calculator":        "Add:changed Mul:changed Sub:changed errNeg:fresh",
		"Fix overflow in Add (#12)": "Add:fresh",
		"Multiply directly":         "Mul:fresh",
	})
	fix := mems[1]
	if !strings.Contains(fix.Body, "[#12](https://github.com/acme/calc/issues/12)") || !strings.Contains(fix.Body, "(https://github.com/acme/calc/commit/"+fix.GitCommit+")") ||
		!strings.Contains(fix.Body, "Large inputs wrapped around silently.") || fix.CreatedAt.Day() != 2 {
		t.Errorf("fix memory body %q (created %s): want the message, commit and issue links", fix.Body, fix.CreatedAt)
	}
	testIncremental(t, w, repo, mems)
}

// checkAnchors compares each memory's anchors (definition name:status,
// sorted) by title.
func checkAnchors(t *testing.T, mems []*memory.Memory, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, m := range mems {
		var as []string
		for _, a := range m.Anchors {
			if a.Kind != memory.KindSymbol || a.GitCommit != m.GitCommit {
				t.Errorf("%s: anchor %+v is not a symbol anchor at the commit", m.Title, a)
			}
			as = append(as, a.DefName+":"+a.Status)
		}
		got[m.Title] = strings.Join(sortedStrings(as), " ")
	}
	for title, w := range want {
		if got[title] != w {
			t.Errorf("anchors of %q: %q, want %q", title, got[title], w)
		}
	}
}

func sortedStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// testIncremental: a second run imports nothing; a new commit is imported
// alone and makes the memory of the code it changes stale; an amended
// (rewritten) head is not imported again (same author and author date),
// the known commits are skipped by id.
func testIncremental(t *testing.T, w *memory.Workspace, repo string, before []*memory.Memory) {
	ctx := context.Background()
	res, err := importgit.Run(ctx, w, importgit.Options{})
	if err != nil || res.Created != 0 || res.Commits != 0 || !res.Incremental {
		t.Fatalf("second run: %+v, %v; want nothing examined", res, err)
	}
	testutil.WriteFiles(t, repo, map[string]string{"calc.go": calc(addV2, subV4, mulV3)})
	commitAt(t, repo, "Handle negative factors in Mul", 11)
	res, err = importgit.Run(ctx, w, importgit.Options{})
	if err != nil || res.Created != 1 || res.Commits != 1 {
		t.Fatalf("run after a commit: %+v, %v; want 1 examined, 1 created", res, err)
	}
	if _, err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
	mems, _ := w.List()
	checkAnchors(t, mems, map[string]string{"Multiply directly": "Mul:changed", "Handle negative factors in Mul": "Mul:fresh"})
	testutil.Git(t, repo, "commit", "-q", "--amend", "-m", "Handle negative factors in Mul (reworded)")
	res, err = importgit.Run(ctx, w, importgit.Options{})
	if err != nil || res.Created != 0 || res.Incremental || res.Skipped[importgit.SkipImported] != 3 || res.Skipped[importgit.SkipRewritten] != 1 {
		t.Fatalf("run after a rewrite: %+v, %v; want a full walk, nothing created, 3 already imported, 1 rewritten", res, err)
	}
	if n := len(before); n != 3 {
		t.Fatalf("first run stored %d memories", n)
	}
}

func TestImportGitOptions(t *testing.T) {
	repo, _ := historyRepo(t)
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	if _, err := importgit.Run(ctx, w, importgit.Options{Since: "not a date"}); err == nil || !strings.Contains(err.Error(), "neither a date") {
		t.Errorf("bad --since: %v", err)
	}
	if _, err := importgit.Run(ctx, w, importgit.Options{Paths: "[x"}); err == nil {
		t.Error("bad --paths: no error")
	}
	res, err := importgit.Run(ctx, w, importgit.Options{Limit: 8, MaxDefinitions: 40, Merges: true})
	if err != nil {
		t.Fatal(err)
	}
	// The 8 newest: fix .. docs; the huge and the merge commits now count.
	if res.Commits != 8 || res.Created != 4 || res.Skipped[importgit.SkipHuge] != 0 || res.Skipped[importgit.SkipMerge] != 0 {
		t.Errorf("limit 8 with merges: %+v", res)
	}
	mems, _ := w.List()
	for _, m := range mems {
		if m.Title == "Merge branch 'feature'" && (len(m.Anchors) != 1 || m.Anchors[0].DefName != "Div") {
			t.Errorf("merge memory anchors %+v, want Div", m.Anchors)
		}
	}
	// The range of the limited run was examined with other options: the
	// next run walks all (the fix, decision and huge commits are known).
	res, err = importgit.Run(ctx, w, importgit.Options{Paths: "calc.go"})
	if err != nil || res.Incremental || res.Created != 1 || res.Skipped[importgit.SkipImported] != 3 {
		t.Errorf("full run after a limited one: %+v, %v; want the initial commit only", res, err)
	}
}

// TestImportGitLimitMark: a run cut by --limit records the range it
// examined, so a second run with the same limit examines nothing, a larger
// limit only the older commits beyond the range, and a new commit alone is
// read next; all runs together create what one full run creates.
func TestImportGitLimitMark(t *testing.T) {
	repo, want := historyRepo(t)
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	created := 0
	run := func(limit, wantCommits int, wantIncremental bool) {
		t.Helper()
		res, err := importgit.Run(ctx, w, importgit.Options{Limit: limit})
		if err != nil || res.Commits != wantCommits || res.Incremental != wantIncremental || res.Skipped[importgit.SkipImported] != 0 {
			t.Fatalf("--limit %d: %+v, %v; want %d commits examined (incremental %t), none known", limit, res, err, wantCommits, wantIncremental)
		}
		created += res.Created
	}
	run(3, 3, false) // docs, merge, huge
	run(3, 0, true)
	run(5, 2, true) // bot, formatting
	run(0, 4, true) // typo, decision, fix, initial: the root
	run(0, 0, true)
	if created != len(want) {
		t.Errorf("created %d memories in all, want %d", created, len(want))
	}
	testutil.WriteFiles(t, repo, map[string]string{"calc.go": calc(addV2, subV4, mulV3)})
	commitAt(t, repo, "Handle negative factors in Mul", 11)
	run(1, 1, true)
	run(0, 0, true)
	// Other options: the range is examined again, nothing is imported twice.
	res, err := importgit.Run(ctx, w, importgit.Options{Limit: 4, Paths: "calc.go"})
	if err != nil || res.Commits != 4 || res.Incremental || res.Created != 0 || res.Skipped[importgit.SkipImported] != 1 {
		t.Errorf("--paths run: %+v, %v; want 4 examined, 1 known", res, err)
	}
}
