package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for gloss (see fakeGloss) when
// GLOSS_EVAL_FAKE_GLOSS is set, so the harness's plumbing is tested without
// the real binary.
func TestMain(m *testing.M) {
	if os.Getenv("GLOSS_EVAL_FAKE_GLOSS") == "1" {
		os.Exit(fakeGloss(os.Args[1:]))
	}
	os.Exit(m.Run())
}

type testRepo struct {
	t *testing.T
	g *Git
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	g := &Git{Dir: t.TempDir(), Env: append(isolatedEnv(t.TempDir()),
		"GIT_AUTHOR_NAME=x", "GIT_AUTHOR_EMAIL=x@y", "GIT_COMMITTER_NAME=x", "GIT_COMMITTER_EMAIL=x@y")}
	if _, err := g.Run(context.Background(), "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	return &testRepo{t, g}
}

// commit writes files (an empty content deletes the file), commits and
// returns the new commit's hash.
func (r *testRepo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	ctx := context.Background()
	for p, content := range files {
		full := filepath.Join(r.g.Dir, p)
		if content == "" {
			if err := os.Remove(full); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	if _, err := r.g.Run(ctx, "add", "-A"); err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.g.Run(ctx, "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-q", "-m", msg); err != nil {
		r.t.Fatal(err)
	}
	out, err := r.g.Run(ctx, "rev-parse", "HEAD")
	if err != nil {
		r.t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

const parentA = `package pkg

func Fresh() int {
	return 1
}

func Reformat() int {
	x:=4
	return x
}

func Above() int {
	return 2
}

func Changed() int {
	return 3
}

func Comment() int {
	y:=5
	return y
}

func OldName() string {
	return "unique body for rename"
}

func Mover() string {
	return "unique body for move"
}

func Sig(x int) int {
	return x
}

func Gone() int {
	return 7
}

type T struct{}

func (t T) Method() int { return 8 }

type List[E any] struct{ e []E }

// Len has a doc comment that is not part of the anchor.
func (l *List[E]) Len() int {
	return len(l.e)
}
`

const commitA = `package pkg

func Fresh() int {
	return 1
}

func Reformat() int {
	x := 4 // formatting and a comment only
	return x
}

// Inserted is new.
func Inserted() int {
	return 0
}

func Above() int {
	return 2
}

func Changed() int {
	return 33
}

func Comment() int {
	// a new comment line
	y := 5
	return y
}

func NewName() string {
	return "unique body for rename"
}

func Sig(x int64) int64 {
	return x
}

type T struct{}

func (t *T) Method() int { return 8 }

type List[E any] struct{ e []E }

// Len has a doc comment that is not part of the anchor.
func (l *List[E]) Len() int {
	return len(l.e)
}
`

const commitB = `package pkg

func Mover() string {
	return "unique body for move"
}
`

func TestOracleAndBaselines(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	p := r.commit("parent", map[string]string{"pkg/a.go": parentA, "pkg/doc.go": "package pkg\n"})
	c := r.commit("change", map[string]string{"pkg/a.go": commitA, "pkg/b.go": commitB})

	blobs, err := NewBlobReader(ctx, r.g)
	if err != nil {
		t.Fatal(err)
	}
	defer blobs.Close()
	ps := &PairSource{Git: r.g, Blobs: blobs, Parent: p, Commit: c}
	po, err := RunOracle(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	if err := RunBaselines(ctx, ps, po); err != nil {
		t.Fatal(err)
	}
	got := map[string]*Subject{}
	for _, s := range po.Subjects {
		got[s.Func.Display()] = s
	}

	type want struct {
		status     string
		path       string
		start, end int
		formatOnly bool
		lineHash   bool // stale
		diffMap    bool // stale
		diffLines  [2]int
	}
	cases := map[string]want{
		"pkg.Fresh":      {StatusFresh, "pkg/a.go", 3, 5, false, false, false, [2]int{3, 5}},
		"pkg.Reformat":   {StatusFresh, "pkg/a.go", 7, 10, true, true, true, [2]int{}},
		"pkg.Above":      {StatusMoved, "pkg/a.go", 17, 19, false, true, false, [2]int{17, 19}},
		"pkg.Changed":    {StatusChanged, "pkg/a.go", 21, 23, false, true, true, [2]int{}},
		"pkg.Comment":    {StatusMoved, "pkg/a.go", 25, 29, true, true, true, [2]int{}},
		"pkg.OldName":    {StatusMoved, "pkg/a.go", 31, 33, false, true, true, [2]int{}},
		"pkg.Mover":      {StatusMoved, "pkg/b.go", 3, 5, false, true, true, [2]int{}},
		"pkg.Sig":        {StatusSignatureChanged, "pkg/a.go", 35, 37, false, true, true, [2]int{}},
		"pkg.Gone":       {StatusDeleted, "", 0, 0, false, true, true, [2]int{}},
		"pkg.(T).Method": {StatusSignatureChanged, "pkg/a.go", 41, 41, false, true, true, [2]int{}},
		"pkg.(List).Len": {StatusMoved, "pkg/a.go", 46, 48, false, true, false, [2]int{46, 48}},
	}
	if len(got) != len(cases) {
		var names []string
		for k := range got {
			names = append(names, k)
		}
		t.Fatalf("subjects %v, want %d", names, len(cases))
	}
	for name, w := range cases {
		s := got[name]
		if s == nil {
			t.Errorf("%s: no subject", name)
			continue
		}
		o := s.Oracle
		if o.Status != w.status || o.Path != w.path || o.Start != w.start || o.End != w.end || o.FormatOnly != w.formatOnly {
			t.Errorf("%s (%d-%d): oracle %+v, want %+v", name, s.Func.Start, s.Func.End, o, w)
		}
		if s.LineHash.Stale != w.lineHash {
			t.Errorf("%s: line-hash stale %v, want %v", name, s.LineHash.Stale, w.lineHash)
		}
		if s.DiffMap.Stale != w.diffMap {
			t.Errorf("%s: diff-map stale %v, want %v", name, s.DiffMap.Stale, w.diffMap)
		} else if !w.diffMap && [2]int{s.DiffMap.Start, s.DiffMap.End} != w.diffLines {
			t.Errorf("%s: diff-map lines %d-%d, want %v", name, s.DiffMap.Start, s.DiffMap.End, w.diffLines)
		}
	}
	if n := got["pkg.OldName"].Oracle.NewName; n != "NewName" {
		t.Errorf("rename: new name %q", n)
	}
	// The doc comment is outside the anchor.
	if f := got["pkg.(List).Len"].Func; f.Start != 48 || f.End != 50 {
		t.Errorf("Len declared at %d-%d, want 48-50", f.Start, f.End)
	}

	rep := &Report{Commits: []*CommitReport{{Pair: Pair{Parent: p, Commit: c}, subjects: po.Subjects}}}
	rep.Finish(false)
	lh, dm := rep.Methods.LineHash, rep.Methods.DiffMap
	// Oracle stale: Changed, Sig, Gone, Method.
	if lh.TP != 4 || lh.FN != 0 || lh.FP != 6 || lh.TN != 1 || lh.FormatOnly != 2 || lh.FormatOnlyFlagged != 2 {
		t.Errorf("line-hash metrics %+v", lh)
	}
	if dm.TP != 4 || dm.FP != 4 || dm.TN != 3 || dm.Moved != 5 || dm.MovedCorrect != 2 {
		t.Errorf("diff-map metrics %+v", dm)
	}
}

func TestDuplicateIdentities(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	p := r.commit("parent", map[string]string{
		"a.go": "package m\n\nfunc init() {\n\tprintln(1)\n}\n\nfunc init() {\n\tprintln(2)\n}\n",
		"b.go": "package m\n\nfunc init() {\n\tprintln(3)\n}\n",
	})
	c := r.commit("change", map[string]string{
		"a.go": "package m\n\nfunc init() {\n\tprintln(1)\n}\n\nfunc init() {\n\tprintln(22)\n}\n",
		"b.go": "",
	})
	blobs, err := NewBlobReader(ctx, r.g)
	if err != nil {
		t.Fatal(err)
	}
	defer blobs.Close()
	po, err := RunOracle(ctx, &PairSource{Git: r.g, Blobs: blobs, Parent: p, Commit: c})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range po.Subjects {
		got = append(got, fmt.Sprintf("%s#%d:%s", s.Func.Path, s.Func.Ordinal, s.Oracle.Status))
	}
	want := []string{"a.go#0:fresh", "a.go#1:changed", "b.go#0:deleted"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestBodyMatching(t *testing.T) {
	ctx := context.Background()
	r := newTestRepo(t)
	p := r.commit("parent", map[string]string{
		"a.go": "package m\n\nfunc Twin1() string {\n\treturn \"twin\"\n}\n\nfunc Twin2() string {\n\treturn \"twin\"\n}\n\n" +
			"func split() int {\n\treturn 1 // old\n}\n\n" +
			"type A struct{}\ntype B struct{}\n\nfunc (A) isA() {}\nfunc (B) isB() {}\n",
		"e.go":      "package m\n\nfunc isExported(s string) bool {\n\treturn s != \"\" && s[0] < 'a'\n}\n",
		"e_test.go": "package m_test\n\nfunc isExported(s string) bool {\n\treturn s != \"\" && s[0] < 'a'\n}\n",
	})
	c := r.commit("change", map[string]string{
		"a.go": "package m\n\nfunc Twin1Renamed() string {\n\treturn \"twin\"\n}\n\nfunc Twin2() string {\n\treturn \"twin\"\n}\n\n" +
			"type C struct{}\n\nfunc (C) isC() {}\n",
		// The external test package's copy goes; the package's stays.
		"e.go":      "package m\n\nfunc isExported(s string) bool {\n\treturn s != \"\" && s[0] < 'a'\n}\n\nvar x = 1\n",
		"e_test.go": "package m_test\n",
		// split moves into two build-tagged variants; one has its tokens.
		"x_linux.go": "//go:build linux\n\npackage m\n\nfunc split() int {\n\treturn 1\n}\n",
		"x_other.go": "//go:build !linux\n\npackage m\n\nfunc split() int {\n\treturn 2\n}\n",
	})
	blobs, err := NewBlobReader(ctx, r.g)
	if err != nil {
		t.Fatal(err)
	}
	defer blobs.Close()
	po, err := RunOracle(ctx, &PairSource{Git: r.g, Blobs: blobs, Parent: p, Commit: c})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range po.Subjects {
		got = append(got, fmt.Sprintf("%s:%s:%s:%d", s.Func.Name, s.Oracle.Status, s.Oracle.Path, s.Oracle.Start))
	}
	// Twin1's body is not unique among the changed files, and two lost
	// empty methods cannot both be the new one: deleted.
	want := []string{"Twin1:deleted::0", "Twin2:fresh:a.go:7", "split:moved:x_linux.go:5", "isA:deleted::0", "isB:deleted::0",
		"isExported:fresh:e.go:3", "isExported:deleted::0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDiffMap(t *testing.T) {
	f := &Func{Path: "x.go", Start: 10, End: 20}
	for _, tc := range []struct {
		hunks      []Hunk
		stale      bool
		start, end int
	}{
		{nil, false, 10, 20},
		{[]Hunk{{OldStart: 9, OldCount: 0, NewStart: 10, NewCount: 3}}, false, 13, 23},  // insert right above
		{[]Hunk{{OldStart: 20, OldCount: 0, NewStart: 21, NewCount: 3}}, false, 10, 20}, // insert right below
		{[]Hunk{{OldStart: 10, OldCount: 0, NewStart: 11, NewCount: 1}}, true, 0, 0},    // insert inside
		{[]Hunk{{OldStart: 2, OldCount: 3, NewStart: 2, NewCount: 1}}, false, 8, 18},
		{[]Hunk{{OldStart: 5, OldCount: 5, NewStart: 5, NewCount: 0}}, false, 5, 15},
		{[]Hunk{{OldStart: 5, OldCount: 6, NewStart: 5, NewCount: 6}}, true, 0, 0},
		{[]Hunk{{OldStart: 20, OldCount: 1, NewStart: 20, NewCount: 1}}, true, 0, 0},
		{[]Hunk{{OldStart: 21, OldCount: 4, NewStart: 21, NewCount: 0}}, false, 10, 20},
	} {
		got := DiffMap(f, tc.hunks, false)
		if got.Stale != tc.stale || got.Start != tc.start || got.End != tc.end {
			t.Errorf("%+v: got %+v", tc.hunks, got)
		}
	}
	if !DiffMap(f, nil, true).Stale {
		t.Error("a deleted file must be stale")
	}
	h, err := parseHunks([]byte("diff --git a/x b/x\n@@ -3 +3,2 @@ func x\n-a\n+b\n+c\n@@ -10,0 +11 @@\n+d\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Hunk{{3, 1, 3, 2}, {10, 0, 11, 1}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("parseHunks: %+v", h)
	}
}

func TestParseFuncsTokens(t *testing.T) {
	a, err := ParseFuncs("a.go", []byte("package p\n\nfunc F(a int) (int, error) {\n\treturn a, nil // c\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseFuncs("a.go", []byte("package p\n\n/* doc */\nfunc G(a int) (int,\n\terror) {\n\t/* x */ return a,\n\t\tnil\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a[0].Header, b[0].Header) || !reflect.DeepEqual(a[0].Body, b[0].Body) {
		t.Errorf("token streams differ:\n%v\n%v\n%v\n%v", a[0].Header, b[0].Header, a[0].Body, b[0].Body)
	}
	if b[0].Start != 4 || b[0].End != 8 {
		t.Errorf("G at %d-%d, want 4-8", b[0].Start, b[0].End)
	}
	if _, err := ParseFuncs("bad.go", []byte("package p\nfunc {")); err == nil {
		t.Error("want a parse error")
	}
}

func TestParseGlossOutput(t *testing.T) {
	for _, out := range []string{
		`{"id":"A","title":"eval"}` + "\n" + `{"error":"no symbol"}` + "\n" + `{"id":"C"}` + "\n",
		`[{"id":"A"},{"error":"no symbol"},{"memory":{"id":"C"}}]`,
	} {
		res, err := parseRememberOutput([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		want := []RememberResult{{ID: "A"}, {Error: "no symbol"}, {ID: "C"}}
		if !reflect.DeepEqual(res, want) {
			t.Errorf("%s: got %+v", out, res)
		}
	}
	m, err := parseCheckOutput([]byte(`{"memories":[{"id":"A","title":"eval","stale":true,"anchors":[` +
		`{"path":"x/a.go","symbol":"s","start_line":3,"end_line":9,"status":"moved"},` +
		`{"path":"x/b.go","symbol":"t","start_line":1,"end_line":2,"status":"signature_changed"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := glossPrediction("/root", "A", m["A"])
	if !p.Stale || p.Status != StatusMoved || p.Path != "x/a.go" || p.Start != 3 || p.End != 9 {
		t.Errorf("prediction %+v", p)
	}
}

// TestRunWithFakeGloss runs the whole harness against a stand-in gloss with
// line-hash semantics, so gloss's scores must equal the line-hash baseline.
func TestRunWithFakeGloss(t *testing.T) {
	r := newTestRepo(t)
	r.commit("one", map[string]string{"pkg/a.go": parentA, "pkg/doc.go": "package pkg\n"})
	r.commit("two", map[string]string{"pkg/a.go": commitA, "pkg/b.go": commitB})
	r.commit("three", map[string]string{"pkg/b.go": "package pkg\n\nfunc Mover() string {\n\treturn \"changed\"\n}\n"})
	r.commit("docs only", map[string]string{"README": "hi\n"})

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GLOSS_EVAL_FAKE_GLOSS", "1")
	out := filepath.Join(t.TempDir(), "report.json")
	o := options{gloss: exe, repo: r.g.Dir, rev: "HEAD", commits: 10, maxFuncs: 400, out: out, timeout: time.Minute, stdout: io.Discard, stderr: io.Discard}
	if err := run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.CommitsEvaluated != 2 || rep.CommitsSkipped != 1 || rep.HarnessErrors != 0 || rep.Memories != 12 {
		t.Fatalf("report: evaluated %d skipped %d errors %d memories %d", rep.CommitsEvaluated, rep.CommitsSkipped, rep.HarnessErrors, rep.Memories)
	}
	if !reflect.DeepEqual(rep.Methods.Gloss, rep.Methods.LineHash) {
		t.Errorf("fake gloss %+v != line-hash %+v", rep.Methods.Gloss, rep.Methods.LineHash)
	}
	for _, c := range rep.Commits {
		if len(c.Errors) > 0 {
			t.Errorf("%.10s: errors %v", c.Commit, c.Errors)
		}
	}
	if len(rep.Disagreements) == 0 {
		t.Error("want disagreements recorded")
	}
	// The repository under evaluation is untouched.
	if st, err := r.g.Run(context.Background(), "status", "--porcelain"); err != nil || len(st) != 0 {
		t.Errorf("repo modified: %q %v", st, err)
	}
}

// fakeGloss is a stand-in for the gloss CLI with line-hash semantics: a
// memory is fresh while the text of its line range is unchanged, changed
// otherwise, deleted with its file. It keeps memories in
// $GLOSS_HOME/fake.json and insists on the environment the harness must set.
func fakeGloss(args []string) int {
	home := os.Getenv("GLOSS_HOME")
	if home == "" || os.Getenv("GIT_CONFIG_NOSYSTEM") != "1" {
		fmt.Fprintln(os.Stderr, "fake gloss: isolation variables missing")
		return 2
	}
	type mem struct {
		ID, Path   string
		Start, End int
		Text       string
	}
	store := filepath.Join(home, "fake.json")
	var mems []mem
	if data, err := os.ReadFile(store); err == nil {
		json.Unmarshal(data, &mems)
	}
	save := func() int {
		data, _ := json.Marshal(mems)
		if err := os.WriteFile(store, data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	read := func(p string, s, e int) (string, bool) {
		src, err := os.ReadFile(p)
		if err != nil {
			return "", false
		}
		b, ok := lineRange(src, s, e)
		return string(b), ok
	}
	if len(args) == 0 {
		return 2
	}
	switch args[0] {
	case "index":
		return 0
	case "remember":
		if len(args) != 4 || args[1] != "--batch" || args[3] != "--json" {
			return 2
		}
		f, err := os.Open(args[2])
		if err != nil {
			return 1
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var req RememberRequest
			json.Unmarshal(sc.Bytes(), &req)
			p, rng, _ := strings.Cut(req.At, ":")
			a, b, _ := strings.Cut(rng, "-")
			s, _ := strconv.Atoi(a)
			e, _ := strconv.Atoi(b)
			text, ok := read(p, s, e)
			if !ok {
				fmt.Printf("{\"error\":%q}\n", "cannot read "+req.At)
				continue
			}
			id := fmt.Sprintf("M%d-%d", os.Getpid(), len(mems))
			mems = append(mems, mem{id, p, s, e, text})
			fmt.Printf("{\"id\":%q,\"title\":%q}\n", id, req.Title)
		}
		return save()
	case "check":
		var doc struct {
			Memories []CheckMemory `json:"memories"`
		}
		for _, m := range mems {
			text, ok := read(m.Path, m.Start, m.End)
			st := StatusFresh
			switch {
			case !ok:
				st = StatusDeleted
			case text != m.Text:
				st = StatusChanged
			}
			doc.Memories = append(doc.Memories, CheckMemory{ID: m.ID, Title: "eval", Stale: st != StatusFresh,
				Anchors: []CheckAnchor{{Path: m.Path, StartLine: m.Start, EndLine: m.End, Status: st}}})
		}
		json.NewEncoder(os.Stdout).Encode(doc)
		return 0
	case "forget":
		for _, id := range args[1:] {
			found := false
			for i, m := range mems {
				if m.ID == id {
					mems = append(mems[:i], mems[i+1:]...)
					found = true
					break
				}
			}
			if !found {
				fmt.Fprintln(os.Stderr, "no memory", id)
				return 1
			}
		}
		return save()
	}
	return 2
}
