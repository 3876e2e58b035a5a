package memory

import (
	"context"
	"reflect"
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
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, storedFixture)
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
		if !reflect.DeepEqual(stored.Defs, parsed.Defs) {
			t.Fatalf("%s: stored definitions differ from the parse:\n%+v\n%+v", rel, stored.Defs, parsed.Defs)
		}
		for i, d := range parsed.Defs {
			if got, want := w.symbolAnchor(stored, stored.Defs[i]), w.symbolAnchor(parsed, d); !reflect.DeepEqual(got, want) {
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
// symbol, and span anchors (parsed) inside a definition.
func TestRememberBatchStoredAnchors(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, storedFixture)
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
			want, err = w.symbolAnchor(f, f.Defs[definitionIndex(f.Defs, got.Symbol)]), nil
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
