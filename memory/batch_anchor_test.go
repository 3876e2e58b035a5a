package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
)

// storedFixture is a repository of Go, Python and TypeScript definitions
// (doc comments, methods, nested and one-line definitions).
var storedFixture = map[string]string{
	"go.mod": "module example.com/x\n",
	"a.go":   "package x\n\n// Pool holds connections.\ntype Pool struct {\n\tn int\n}\n\n// Open opens\n// the pool.\nfunc (p *Pool) Open(a, b int) (int, error) {\n\tif a > b {\n\t\treturn a - b, nil\n\t}\n\treturn b - a, nil\n}\n\nconst Cap = 3\n\nvar Limit = Cap * 2\n\nfunc helper() { _ = Limit }\n",
	"m.py":   "class Store:\n    \"\"\"A store.\"\"\"\n\n    def get(self, key):\n        \"\"\"Get a key.\"\"\"\n        if key:\n            return key * 2\n        return None\n\n\ndef top(a, b):\n    return a + b\n",
	"w.ts":   "// Widget draws.\nexport class Widget {\n  size = 3;\n  draw(x: number): number {\n    return x * this.size;\n  }\n}\n\nexport function make(): Widget {\n  return new Widget();\n}\n",
}

// Anchors built from a file's stored index record (storedFile) are
// byte-identical to those built from its parse, for every definition's
// line range (with and without its doc comment) and for every symbol; a
// file changed since it was indexed has no stored file.
func TestStoredFileAnchorsMatchParse(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	w.now = func() time.Time { return at }
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := w.newBatchState()
	checked := 0
	for _, rel := range []string{"a.go", "m.py", "w.ts"} {
		parsed, err := w.parseFile(rel)
		if err != nil {
			t.Fatal(err)
		}
		defer parsed.Release()
		stored := w.storedFile(rel, st)
		if stored == nil {
			t.Fatalf("%s: no stored file for an unchanged indexed file", rel)
		}
		// The stored records a batch anchors with have no doc comments
		// (index.Store.FileDefs); everything else is the parse's.
		want := slices.Clone(parsed.Defs)
		for i := range want {
			want[i].Doc = ""
		}
		if !reflect.DeepEqual(stored.Defs, want) {
			t.Fatalf("%s: stored definitions differ from the parse:\n%+v\n%+v", rel, stored.Defs, want)
		}
		for i, d := range parsed.Defs {
			if got, want := w.SymbolAnchor(stored, stored.Defs[i]), w.SymbolAnchor(parsed, d); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: symbol anchor of %s:\nstored %+v\nparsed %+v", rel, d.Symbol, got, want)
			}
			for _, first := range []int{d.DocLine, d.Range.StartLine} {
				last := d.Range.LastLine()
				want, err := w.anchorAt(parsed, first, last)
				if err != nil {
					t.Fatal(err)
				}
				got, ok, err := w.storedLinesAnchor(stored, first, last)
				if err != nil || !ok {
					t.Fatalf("%s lines %d-%d: stored anchor ok=%v err=%v", rel, first+1, last+1, ok, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s lines %d-%d:\nstored %+v\nparsed %+v", rel, first+1, last+1, got, want)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d line ranges compared", checked)
	}
	testutil.WriteFiles(t, repo, map[string]string{"a.go": storedFixture["a.go"] + "\nfunc later() {}\n"})
	if f := w.storedFile("a.go", w.newBatchState()); f != nil {
		t.Fatal("a file changed since it was indexed got a stored file")
	}
}

// RememberBatch, which reads indexed unchanged files from their stored
// records, gives the anchors of a parse: symbol anchors by lines and by
// symbol, and span anchors inside a definition (from stored tokens).
func TestRememberBatchStoredAnchors(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	w.now = func() time.Time { return at }
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs := []RememberRequest{
		{Text: "method by lines", Path: repo + "/a.go", StartLine: 8, EndLine: 15},
		{Text: "span in method", Path: repo + "/a.go", StartLine: 11, EndLine: 12},
		{Text: "python method", Path: repo + "/m.py", StartLine: 4, EndLine: 8},
		{Text: "span in ts", Path: repo + "/w.ts", StartLine: 5, EndLine: 5},
		{Text: "ts by symbol", Symbol: "Widget"},
	}
	ms, errs := w.RememberBatch(context.Background(), reqs)
	for i, req := range reqs {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		got := ms[i].Anchors[0]
		got.GitCommit, got.GitBlob = "", ""
		rel, first, last := got.Path, req.StartLine-1, req.EndLine-1
		f, err := w.parseFile(rel)
		if err != nil {
			t.Fatal(err)
		}
		want, err := w.anchorAt(f, first, last)
		if req.Symbol != "" {
			want, err = w.SymbolAnchor(f, f.Defs[definitionIndex(f.Defs, got.Symbol)]), nil
		}
		f.Release()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("request %d:\nbatch %+v\nparse %+v", i, got, want)
		}
	}
	kinds := []string{ms[0].Anchors[0].Kind, ms[1].Anchors[0].Kind, ms[2].Anchors[0].Kind, ms[3].Anchors[0].Kind, ms[4].Anchors[0].Kind}
	if !reflect.DeepEqual(kinds, []string{KindSymbol, KindSpan, KindSymbol, KindSpan, KindSymbol}) {
		t.Fatalf("anchor kinds %v", kinds)
	}
}

func definitionIndex(defs []index.Definition, sym string) int {
	for i, d := range defs {
		if d.Symbol == sym {
			return i
		}
	}
	return -1
}

// Span anchors made from a file's stored record and stored token stream
// (no parse) are identical to those anchorAt makes from a parse, for
// every window of one to four lines of Go, Python and TypeScript files
// (this package's anchor.go among them); a batch anchored with the stored
// tokens gives the same anchors and statuses as the same batch anchored
// with parses, and parses nothing.
func TestStoredSpanAnchorsMatchParse(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	files := map[string]string{}
	for p, src := range storedFixture {
		files[p] = src
	}
	if src, err := os.ReadFile("anchor.go"); err == nil {
		files["big/anchor.go"] = string(src)
	}
	testutil.WriteFiles(t, repo, files)
	testutil.Commit(t, repo, "fixture")
	w, err := Open(repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	w.now = func() time.Time { return at }
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := w.newBatchState()
	var reqs []RememberRequest
	spans := 0
	for _, rel := range []string{"a.go", "m.py", "w.ts", "big/anchor.go"} {
		parsed, err := w.parseFile(rel)
		if err != nil {
			t.Fatal(err)
		}
		stored := w.storedFile(rel, st)
		if stored == nil {
			t.Fatalf("%s: no stored file", rel)
		}
		n := parsed.Lines.Count()
		for first := 0; first < n; first++ {
			for last := first; last < min(first+4, n); last++ {
				want, err := w.anchorAt(parsed, first, last)
				if err != nil {
					t.Fatal(err)
				}
				got, ok, err := w.storedLinesAnchor(stored, first, last)
				if err != nil || !ok {
					t.Fatalf("%s lines %d-%d: stored anchor ok=%v err=%v", rel, first+1, last+1, ok, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s lines %d-%d:\nstored %+v\nparsed %+v", rel, first+1, last+1, got, want)
				}
				if want.Kind == KindSpan {
					spans++
				}
				if (first+last)%7 == 0 {
					reqs = append(reqs, RememberRequest{Text: fmt.Sprintf("note %d", len(reqs)), Path: filepath.Join(repo, rel), StartLine: first + 1, EndLine: last + 1})
				}
			}
		}
		parsed.Release()
	}
	if spans < 200 {
		t.Fatalf("only %d span anchors compared", spans)
	}

	batch := func(parse bool) []Anchor {
		w.parseSpans = parse
		defer func() { w.parseSpans = false }()
		st := w.newBatchState()
		out := make([]*Memory, len(reqs))
		errs := make([]error, len(reqs))
		w.writeMu.Lock()
		w.rememberChunk(context.Background(), reqs, out, errs, st)
		st.derived.wait() // as RememberBatchEach does: the indexes' update writes in the workspace
		w.writeMu.Unlock()
		if parsedFiles := len(st.files); parse == (parsedFiles == 0) {
			t.Fatalf("parse=%v: %d files parsed", parse, parsedFiles)
		}
		var as []Anchor
		for i, m := range out {
			if errs[i] != nil {
				t.Fatalf("request %d: %v", i, errs[i])
			}
			as = append(as, m.Anchors...)
		}
		return as
	}
	withParse, stored := batch(true), batch(false)
	if len(stored) != len(reqs) || !reflect.DeepEqual(stored, withParse) {
		t.Fatalf("batch anchors from stored tokens differ from those of parses (%d, %d anchors)", len(stored), len(withParse))
	}
}

// The index generation that batch anchors record (Anchor.ResolvedGen,
// read once per chunk) is the store's at the time of the batch: after an
// index run moved it, the next batch records the new one, and no cached
// value outlives a batch.
func TestRememberBatchResolvedGeneration(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	for round := 0; round < 2; round++ {
		if round == 1 {
			testutil.WriteFiles(t, repo, map[string]string{"b.go": "package x\n\nfunc B() {}\n"})
		}
		if _, err := w.Index(ctx); err != nil {
			t.Fatal(err)
		}
		want, err := w.Store.Generation()
		if err != nil {
			t.Fatal(err)
		}
		var reqs []RememberRequest
		for i := 0; i < RememberChunk+5; i++ { // two chunks
			reqs = append(reqs, RememberRequest{Text: fmt.Sprintf("note %d", i), Path: repo + "/a.go", StartLine: 8 + i%2, EndLine: 15})
		}
		ms, errs := w.RememberBatch(ctx, reqs)
		for i := range reqs {
			if errs[i] != nil {
				t.Fatalf("round %d, request %d: %v", round, i, errs[i])
			}
			if got := ms[i].Anchors[0].ResolvedGen; got != want {
				t.Fatalf("round %d, request %d: resolved generation %d, the store's is %d", round, i, got, want)
			}
		}
		if g := w.batchGen.Load(); g != 0 {
			t.Fatalf("round %d: a cached generation (%d) outlived the batch", round, g-1)
		}
	}
	if g0, _ := w.Store.Generation(); g0 < 2 {
		t.Fatalf("the second index run did not move the generation (%d)", g0)
	}
}

// With Options.KeepBatchFiles, the files one RememberBatch call built
// from stored records serve the next call only while the file on disk
// has the same bytes and the index generation has not moved: a file
// edited on disk since is anchored from its parse (as without the
// option), an unchanged one from the kept file, and an index run drops
// them all.
func TestKeepBatchFilesAcrossCalls(t *testing.T) {
	w, repo := storedWorkspace(t, Options{KeepBatchFiles: true})
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	w.now = func() time.Time { return at }
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := []RememberRequest{
		{Text: "method by lines", Path: repo + "/a.go", StartLine: 8, EndLine: 15},
		{Text: "span in method", Path: repo + "/a.go", StartLine: 11, EndLine: 12},
		{Text: "python method", Path: repo + "/m.py", StartLine: 4, EndLine: 8},
	}
	if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil || errs[1] != nil || errs[2] != nil {
		t.Fatal(errs)
	}
	if w.keptFiles == nil || w.keptFiles.files["a.go"] == nil || w.keptFiles.files["m.py"] == nil {
		t.Fatalf("no files kept after the first call: %+v", w.keptFiles)
	}
	keptPy := w.keptFiles.files["m.py"]
	// a.go gains two lines at the top, not indexed: the kept a.go no
	// longer describes it.
	testutil.WriteFiles(t, repo, map[string]string{"a.go": "// edited\n// again\n" + storedFixture["a.go"]})
	ms, errs := w.RememberBatch(ctx, reqs)
	for i, req := range reqs {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		got := ms[i].Anchors[0]
		got.GitCommit, got.GitBlob = "", ""
		f, err := w.parseFile(got.Path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := w.anchorAt(f, req.StartLine-1, req.EndLine-1)
		f.Release()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("request %d after the edit:\nbatch %+v\nparse %+v", i, got, want)
		}
	}
	if w.keptFiles == nil || w.keptFiles.files["m.py"] != keptPy {
		t.Fatalf("the unchanged m.py was not used again from the kept files")
	}
	if w.keptFiles.files["a.go"] != nil {
		t.Fatalf("the edited a.go, which its stored record no longer describes, was kept")
	}
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	st := w.newBatchState()
	w.carryFiles(st)
	if st.carried != nil || w.keptFiles != nil {
		t.Fatalf("kept files survived an index run: %d", len(st.carried))
	}
}

// storedWorkspace opens a workspace with opts on a hermetic git
// repository (testutil.Hermetic) holding storedFixture in one commit,
// closed when t ends; it returns the workspace and the repository's root.
func storedWorkspace(t *testing.T, opts Options) (*Workspace, string) {
	t.Helper()
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, storedFixture)
	testutil.Commit(t, repo, "fixture")
	w, err := Open(repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, repo
}

// RememberBatchEach reports every request once, in order, each chunk
// right after its commit and before the next chunk is stored, and gives
// the same results as RememberBatch (an invalid request is an error in its
// place).
func TestRememberBatchEachPerChunk(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	var reqs []RememberRequest
	for i := 0; i < 2*RememberChunk+3; i++ { // three chunks
		req := RememberRequest{Text: fmt.Sprintf("note %d", i), Path: repo + "/a.go", StartLine: 8 + i%2, EndLine: 15}
		if i == RememberChunk+1 {
			req.Text = "" // invalid: an error in its place
		}
		reqs = append(reqs, req)
	}
	next := 0
	w.RememberBatchEach(ctx, reqs, func(i int, m *Memory, err error) {
		if i != next {
			t.Fatalf("request %d reported, want %d", i, next)
		}
		next++
		if (err != nil) != (i == RememberChunk+1) || (m == nil) == (err == nil) {
			t.Fatalf("request %d: memory %v, error %v", i, m != nil, err)
		}
		if i%RememberChunk == 0 {
			// The chunk of i is committed, the next one not started.
			n, cerr := w.Store.MemoryCount()
			want := i + RememberChunk
			if i >= RememberChunk {
				want-- // the invalid request of the second chunk
			}
			if cerr != nil || n != min(want, len(reqs)-1) {
				t.Fatalf("at request %d: %d memories stored (%v), want %d", i, n, cerr, min(want, len(reqs)-1))
			}
		}
	})
	if next != len(reqs) {
		t.Fatalf("%d of %d requests reported", next, len(reqs))
	}
}

// The derived indexes of a batch's chunks are updated beside the next
// chunk (derivedQueue): a near-duplicate check in a later chunk still
// sees the memories of the earlier ones, and when RememberBatchEach
// returns, a search finds memories of its first and last chunks.
func TestRememberBatchDerivedAcrossChunks(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	first := "Retries are capped at 3\nThe upstream rate-limits bursts, so retries are capped at 3 attempts."
	var reqs []RememberRequest
	for i := 0; i < RememberChunk+2; i++ {
		reqs = append(reqs, RememberRequest{Text: fmt.Sprintf("note %d about zebra%d", i, i), Path: repo + "/a.go", StartLine: 8, EndLine: 15})
	}
	reqs[0].Text = first
	reqs[RememberChunk] = RememberRequest{Text: first, Path: repo + "/a.go", StartLine: 8, EndLine: 15, OnDuplicate: OnDuplicateNoop}
	got := make([]*Memory, len(reqs))
	w.RememberBatchEach(ctx, reqs, func(i int, m *Memory, err error) {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		got[i] = m
	})
	if d := got[RememberChunk].Decision; d == nil || d.Action != DecisionNoop || got[RememberChunk].ID != got[0].ID {
		t.Fatalf("the second chunk's duplicate of request 0: decision %+v, id %s, want noop with %s", d, got[RememberChunk].ID, got[0].ID)
	}
	for _, i := range []int{1, RememberChunk + 1} {
		hits, err := w.Search(ctx, fmt.Sprintf("zebra%d", i), 5)
		if err != nil || len(hits) == 0 || hits[0].Memory.ID != got[i].ID {
			t.Fatalf("search for request %d's word: %d hits, %v", i, len(hits), err)
		}
	}
}

// RememberStream reads its source a chunk at a time (plus one request
// ahead): when request i is reported, the source has yielded no request
// beyond the chunk after i's first one; every request is reported once,
// in order.
func TestRememberStreamReadsByChunk(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	total := 2*RememberChunk + 3
	yielded := 0
	src := func(yield func(RememberRequest) bool) {
		for i := range total {
			yielded++
			if !yield(RememberRequest{Text: fmt.Sprintf("note %d", i), Path: repo + "/a.go", StartLine: 8, EndLine: 15}) {
				return
			}
		}
	}
	next := 0
	w.RememberStream(ctx, src, 0, func(i int, m *Memory, err error) {
		if i != next || err != nil || m == nil {
			t.Fatalf("request %d reported (want %d): memory %v, error %v", i, next, m != nil, err)
		}
		next++
		if most := (i/RememberChunk+1)*RememberChunk + 1; yielded > most {
			t.Fatalf("at request %d the source had yielded %d requests, want at most %d", i, yielded, most)
		}
	})
	if next != total {
		t.Fatalf("%d of %d requests reported", next, total)
	}
	if n, err := w.Store.MemoryCount(); err != nil || n != total {
		t.Fatalf("%d memories stored (%v), want %d", n, err, total)
	}
}

// bulkRows compacts after each bulkWindow rows and reserves room for the
// rows of the next window, fewer at the end of a batch of known size.
func TestBulkRows(t *testing.T) {
	b := newBulkRows(2*bulkWindow + 500)
	if r := b.reserve(); r != bulkWindow {
		t.Fatalf("first reserve %d, want %d", r, bulkWindow)
	}
	var compactions []int
	for k := 0; k < 2*bulkWindow+500; k += RememberChunk / 2 {
		if compact, reserve := b.add(RememberChunk / 2); compact {
			compactions = append(compactions, reserve)
		}
	}
	if fmt.Sprint(compactions) != fmt.Sprint([]int{bulkWindow, 500}) {
		t.Fatalf("compactions reserving %v, want [%d 500]", compactions, bulkWindow)
	}
	if r := newBulkRows(0).reserve(); r != bulkWindow {
		t.Fatalf("reserve of a batch of unknown size %d, want %d", r, bulkWindow)
	}
	var none *bulkRows
	if compact, _ := none.add(bulkWindow); compact {
		t.Fatal("a batch of one chunk compacted")
	}
}

// A stream sees a commit made while it runs from its next window of
// bulkWindow requests on (batchState.renew): the memories before carry
// the first commit and a.go's blob in it, those after the new ones.
func TestRememberStreamRenews(t *testing.T) {
	w, repo := storedWorkspace(t, Options{KeepBatchFiles: true})
	ctx := context.Background()
	first, _ := git(repo, "rev-parse", "HEAD")
	src := func(yield func(RememberRequest) bool) {
		for i := range bulkWindow + 5 {
			if i == bulkWindow {
				testutil.WriteFiles(t, repo, map[string]string{"a.go": storedFixture["a.go"] + "\n// edited\n"})
				testutil.Commit(t, repo, "edit")
			}
			if !yield(RememberRequest{Text: fmt.Sprintf("note %d", i), Path: repo + "/a.go", StartLine: 8, EndLine: 15}) {
				return
			}
		}
	}
	got := map[int]*Memory{}
	w.RememberStream(ctx, src, 0, func(i int, m *Memory, err error) {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if i == 0 || i == bulkWindow-1 || i == bulkWindow {
			got[i] = m
		}
	})
	second, _ := git(repo, "rev-parse", "HEAD")
	if first == second {
		t.Fatal("the edit made no commit")
	}
	before, after := got[bulkWindow-1], got[bulkWindow]
	if got[0].GitCommit != first || before.GitCommit != first || after.GitCommit != second {
		t.Fatalf("commits %s, %s, %s; want %s twice, then %s", got[0].GitCommit, before.GitCommit, after.GitCommit, first, second)
	}
	if before.Anchors[0].GitBlob == "" || before.Anchors[0].GitBlob == after.Anchors[0].GitBlob {
		t.Fatalf("a.go's blob %q before the commit, %q after: want two blobs", before.Anchors[0].GitBlob, after.Anchors[0].GitBlob)
	}
}

// A call that ends on a window's renew (bulkWindow requests: every stored
// file moved to carried) keeps the carried files for the next call too,
// and Options.KeepBatchFilesFor drops the kept files once they have
// waited that long.
func TestKeepBatchFilesCarriedAndExpiry(t *testing.T) {
	w, repo := storedWorkspace(t, Options{KeepBatchFiles: true, KeepBatchFilesFor: 50 * time.Millisecond})
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := []RememberRequest{
		{Text: "method by lines", Path: repo + "/a.go", StartLine: 8, EndLine: 15},
		{Text: "python method", Path: repo + "/m.py", StartLine: 4, EndLine: 8},
	}
	// What a call ending on a renew leaves: a.go carried, m.py stored.
	w.writeMu.Lock()
	st := w.newBatchState()
	w.carryFiles(st)
	a, m := w.storedFile("a.go", st), w.storedFile("m.py", st)
	if a == nil || m == nil {
		w.writeMu.Unlock()
		t.Fatal("no stored files")
	}
	st.renew(w)
	st.stored["m.py"] = m
	w.keepFiles(st)
	kept := w.keptFiles
	w.writeMu.Unlock()
	if kept == nil || kept.files["a.go"] != a || kept.files["m.py"] != m {
		t.Fatalf("kept %+v, want the carried a.go and the stored m.py", kept)
	}
	if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	w.writeMu.Lock()
	kept = w.keptFiles
	w.writeMu.Unlock()
	if kept == nil || kept.files["a.go"] != a {
		t.Fatalf("the next call did not carry a.go: %+v", kept)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.writeMu.Lock()
		kept = w.keptFiles
		w.writeMu.Unlock()
		if kept == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("kept files still held 10 s after a KeepBatchFilesFor of 50 ms")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
