package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	ts "github.com/odvcencio/gotreesitter"
)

// Run parses RunOptions.First's files first, then a path Prioritize
// names mid-run before the rest of the queue, and reports progress per
// file with a constant total.
func TestRunOrderAndProgress(t *testing.T) {
	root := t.TempDir()
	for i := range 12 {
		p := fmt.Sprintf("f%02d.go", i)
		abs := filepath.Join(root, p)
		if err := os.WriteFile(abs, []byte(fmt.Sprintf("package p\n\nfunc F%d() {}\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour) // not "racy clean": the second run skips them
		if err := os.Chtimes(abs, old, old); err != nil {
			t.Fatal(err)
		}
	}
	st, err := OpenStore(filepath.Join(t.TempDir(), "pebble"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := &Indexer{Root: root, Store: st, Project: NewProject(root), Workers: 1}
	var mu sync.Mutex
	var order []string
	restore := SetParseHook(func(p string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, p)
		if len(order) == 3 {
			ix.Prioritize("f11.go", "absent.go") // an editor opened f11.go
		}
	})
	defer restore()
	var progress [][2]int
	ctx := context.Background()
	o := RunOptions{
		First:    func() []string { return []string{"f07.go", "f03.go"} },
		Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) },
	}
	stats, err := ix.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Parsed != 12 {
		t.Fatalf("parsed %d files, want 12", stats.Parsed)
	}
	// The hook runs before a parse, the feeder may already hold the next
	// job: f11 comes at most one file after it was asked for.
	want := []string{"f07.go", "f03.go", "f00.go"}
	if !reflect.DeepEqual(order[:3], want) {
		t.Fatalf("first parses %v, want %v", order[:3], want)
	}
	if order[3] != "f11.go" && order[4] != "f11.go" {
		t.Errorf("parse order %v: f11.go was prioritized after the third parse", order)
	}
	if len(progress) != 12 || progress[0] != [2]int{1, 12} || progress[11] != [2]int{12, 12} {
		t.Errorf("progress %v, want 1/12 … 12/12", progress)
	}
	progress = nil
	if _, err := ix.Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(progress, [][2]int{{0, 0}}) {
		t.Errorf("progress of a run with nothing to parse = %v, want one 0/0", progress)
	}
}

// Foreground holds new parses of a running index until released (or
// ForegroundWait).
func TestForegroundPausesParses(t *testing.T) {
	defer func(d time.Duration) { ForegroundWait = d }(ForegroundWait)
	ForegroundWait = time.Hour
	ix := &Indexer{}
	release := ix.Foreground()
	done := make(chan struct{})
	go func() {
		ix.yield(context.Background())
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("a worker started a parse during foreground work")
	default:
	}
	release()
	release() // idempotent
	<-done
	if n := ix.sched.fg.Load(); n != 0 {
		t.Fatalf("foreground count %d after release", n)
	}
}

// TestParseBudget checks the weights of the parse budget (each file its
// size, an empty file 1, a file over the budget the whole budget, so it is
// parsed alone rather than never), and that a run whose budget is smaller
// than every file still indexes every file, with the same definitions as
// a run with the default budget.
func TestParseBudget(t *testing.T) {
	for _, c := range []struct{ size, max, want int64 }{
		{0, 1 << 20, parseOverheadBytes}, {10, 1 << 20, parseOverheadBytes + 10},
		{1<<20 - parseOverheadBytes, 1 << 20, 1 << 20}, {5000, 100, 100},
	} {
		if got := parseWeight(c.size, c.max); got != c.want {
			t.Errorf("parseWeight(%d, %d) = %d, want %d", c.size, c.max, got, c.want)
		}
	}
	// Python files weigh half their size (treeWeight), others their size.
	for _, c := range []struct {
		path      string
		size, max int64
		want      int64
	}{
		{"a.py", 100 << 10, 128 << 10, 50<<10 + parseOverheadBytes}, {"a.py", 1 << 20, 128 << 10, 128 << 10},
		{"a.ts", 100 << 10, 128 << 10, 100<<10 + parseOverheadBytes}, {"a.go", 10, 1 << 20, parseOverheadBytes + 10},
	} {
		if got := treeWeight(LanguageFor(c.path), c.size, c.max); got != c.want {
			t.Errorf("treeWeight(%s, %d, %d) = %d, want %d", c.path, c.size, c.max, got, c.want)
		}
	}
	root := t.TempDir()
	for i := range 8 {
		src := fmt.Sprintf("package p\n\n// F%d doc.\nfunc F%d(a int) int { return a + %d }\n\ntype T%d struct{ A int }\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	index := func(budget int64) map[string][]Definition {
		st := indexWithBudget(t, root, budget, 4, 8)
		defs := map[string][]Definition{}
		for i := range 8 {
			p := fmt.Sprintf("f%d.go", i)
			rec, err := st.File(p)
			if err != nil || rec == nil {
				t.Fatalf("budget %d: %s not stored: %v", budget, p, err)
			}
			defs[p] = rec.Defs
		}
		return defs
	}
	small, def := index(1), index(0)
	if !reflect.DeepEqual(small, def) {
		t.Fatal("definitions differ between a 1-byte parse budget and the default")
	}
	if len(def["f3.go"]) != 3 {
		t.Fatalf("f3.go: %d definitions, want 3 (F3, T3, T3.A)", len(def["f3.go"]))
	}
}

// The files a run parses at once never weigh more than MaxParseBytes
// together (parseWeight: size plus parseOverheadBytes), with more
// workers than the budget admits files; and the budget does admit two
// at once. The parse hook runs while its file holds its share of the
// budget: it waits there for a second file to come in (or 2 s), then
// 5 ms more, so that a run without the bound lets the other workers'
// files in meanwhile (a mutant weighing every file 1 fails).
func TestParseBudgetHolds(t *testing.T) {
	root := t.TempDir()
	sizes := map[string]int64{}
	for i := range 24 {
		p := fmt.Sprintf("f%02d.py", i)
		src := fmt.Sprintf("def f%d(a):\n    return a + %d\n", i, i)
		for range i % 5 { // 1 to 5 definitions, under 200 bytes
			src += fmt.Sprintf("\n\nclass C%d:\n    x = %d\n", len(src), i)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		sizes[p] = int64(len(src))
	}
	budget := int64(2*parseOverheadBytes + 400) // two files, never three
	var mu sync.Mutex
	var cur, peak int64
	maxFiles, files := 0, 0
	restore := SetParseHook(func(path string) {
		w := treeWeight(LanguageFor(path), sizes[path], budget)
		mu.Lock()
		cur += w
		files++
		peak, maxFiles = max(peak, cur), max(maxFiles, files)
		mu.Unlock()
		waitFor(&mu, func() bool { return files >= 2 }, 2*time.Second)
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		cur -= w
		files--
		mu.Unlock()
	})
	defer restore()
	indexWithBudget(t, root, budget, 8, 24)
	if peak > budget || maxFiles > 2 {
		t.Fatalf("%d files of weight %d parsed at once, over the budget %d", maxFiles, peak, budget)
	}
	if maxFiles < 2 {
		t.Fatalf("at most %d file parsed at once: the budget admits two", maxFiles)
	}
}

// A parserPool lends the parser given back for the same language, one
// borrower at a time, and creates none itself; takeBack empties the
// worker's map.
func TestParserPool(t *testing.T) {
	py, goLang := LanguageFor("a.py"), LanguageFor("a.go")
	if py == nil || goLang == nil {
		t.Fatal("no Python or Go language")
	}
	var pp parserPool
	ix := &Indexer{}
	a, b := map[*Language]*ts.Parser{}, map[*Language]*ts.Parser{}
	pp.lend(a, py)
	if len(a) != 0 {
		t.Fatal("an empty pool lent a parser")
	}
	p := ix.parser(a, py) // what ParseSource does when none was lent
	pp.takeBack(a)
	if len(a) != 0 {
		t.Fatalf("takeBack left %d parsers in the worker's map", len(a))
	}
	pp.lend(b, goLang)
	if len(b) != 0 {
		t.Fatal("the pool lent a Python parser for Go")
	}
	pp.lend(b, py)
	if b[py] != p {
		t.Fatal("the pool did not lend back the Python parser")
	}
	pp.lend(a, py)
	if len(a) != 0 {
		t.Fatal("the pool lent one parser to two workers")
	}
	pp.takeBack(b)
	pp.lend(a, py)
	if a[py] != p {
		t.Fatal("the parser given back was not lent again")
	}
}

// TestParseBudgetGoFast checks the parse budget of Go files: while the Go
// fast path parses them they weigh goFastWeight, so more of them are
// parsed at once than tree-sitter files would be in the same budget
// (TestParseBudgetHolds: two), and a Go file the fast path refuses (a
// syntax error) holds its whole parseWeight before tree-sitter parses
// it; the files in flight never weigh more than the budget.
func TestParseBudgetGoFast(t *testing.T) {
	root := t.TempDir()
	sizes := map[string]int64{}
	broken := map[string]bool{}
	for i := range 24 {
		p := fmt.Sprintf("f%02d.go", i)
		src := fmt.Sprintf("package p\n\nfunc F%d(a int) int { return a + %d }\n", i, i)
		if i%8 == 3 {
			src = fmt.Sprintf("package p\n\nfunc F%d(a int {\n", i) // refused by the fast path
			broken[p] = true
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		sizes[p] = int64(len(src))
	}
	budget := int64(2*parseOverheadBytes + 400) // two tree-sitter files, never three
	var mu sync.Mutex
	holding := map[string]int64{}
	seen := map[string]bool{}
	maxHeld := map[string]int64{}
	var cur, peak int64
	inFlight := func() int {
		n := 0
		for _, h := range holding {
			if h > 0 {
				n++
			}
		}
		return n
	}
	maxFiles := 0
	restore := setWeightHook(func(path string, held int64) {
		mu.Lock()
		cur += held - holding[path]
		holding[path] = held
		peak, maxFiles = max(peak, cur), max(maxFiles, inFlight())
		maxHeld[path] = max(maxHeld[path], held)
		first := held > 0 && !seen[path]
		seen[path] = true
		mu.Unlock()
		if first {
			waitFor(&mu, func() bool { return inFlight() >= 3 }, 300*time.Millisecond)
		}
	})
	defer restore()
	indexWithBudget(t, root, budget, 8, 24)
	if peak > budget {
		t.Fatalf("files of weight %d parsed at once, over the budget %d", peak, budget)
	}
	if maxFiles < 3 {
		t.Fatalf("at most %d Go files parsed at once: the budget admits more than two", maxFiles)
	}
	for p := range sizes {
		want := goFastWeight(sizes[p], budget)
		if broken[p] {
			want = treeWeight(LanguageFor(p), sizes[p], budget)
		}
		if maxHeld[p] != want {
			t.Errorf("%s held at most %d of the budget, want %d (broken: %v)", p, maxHeld[p], want, broken[p])
		}
	}
}

// indexWithBudget indexes root into a new store with workers workers and
// the parse budget budget, fails t unless the run parsed want files, and
// returns the store (closed when t ends).
func indexWithBudget(t *testing.T, root string, budget int64, workers, want int) *Store {
	t.Helper()
	st, err := OpenStore(filepath.Join(t.TempDir(), "pebble"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix := &Indexer{Root: root, Store: st, Project: NewProject(root), Workers: workers, MaxParseBytes: budget}
	stats, err := ix.Run(context.Background(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Parsed != want {
		t.Fatalf("budget %d: parsed %d files, want %d", budget, stats.Parsed, want)
	}
	return st
}

// waitFor polls cond, with mu held, every millisecond until it holds or
// d has passed.
func waitFor(mu *sync.Mutex, cond func() bool, d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		mu.Lock()
		ok := cond()
		mu.Unlock()
		if ok {
			return
		}
	}
}
