package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"
)

// writeTreeAt writes files (workspace-relative path → content) under root,
// with a modification time of mtime.
func writeTreeAt(t *testing.T, root string, files map[string]string, mtime time.Time) {
	t.Helper()
	writeTree(t, root, files)
	for p := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.Chtimes(abs, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}

// checkTable compares what the definition table answers (File, DefsByName,
// NameCount) with what Pebble answers (storedFile, lookup, the key count)
// for paths and names.
func checkTable(t *testing.T, st *Store, paths, names []string) {
	t.Helper()
	tab := st.table()
	if tab == nil {
		t.Fatal("no definition table after WarmDefinitions")
	}
	for _, p := range paths {
		got, err := st.File(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := st.storedFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("File(%s) from the table = %+v, Pebble has %+v", p, got, want)
		}
	}
	for _, name := range names {
		got, err := st.DefsByName(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := st.lookup(prefixName, name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("DefsByName(%s) from the table = %v, Pebble has %v", name, got, want)
		}
		keys := 0
		if err := Scan(st.pdb(), func([]string, []byte) error { keys++; return nil }, prefixName, name); err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{1, 2, 3, 10} {
			n, err := st.NameCount(name, limit)
			if err != nil {
				t.Fatal(err)
			}
			if want := min(keys, limit); n != want {
				t.Errorf("NameCount(%s, %d) from the table = %d, want %d (keys %d)", name, limit, n, want, keys)
			}
		}
	}
}

// TestDefinitionTableMatchesStore indexes a small Go workspace, builds the
// definition table and checks that File, DefsByName and NameCount answer
// as Pebble does, before and after a second index run that changes,
// removes and adds files, while searches read the table concurrently.
func TestDefinitionTableMatchesStore(t *testing.T) {
	root := t.TempDir()
	t0 := time.Now().Add(-time.Hour)
	writeTreeAt(t, root, map[string]string{
		"go.mod":    "module example.com/app\n\ngo 1.22\n",
		"a/a.go":    "package a\n\n// Open opens.\nfunc Open() int { return helper() }\n\nfunc helper() int { return 1 }\n\n// T is a type.\ntype T struct{}\n\n// Open opens a T.\nfunc (T) Open() int { return Open() }\n",
		"b/b.go":    "package b\n\nfunc init() {}\n\nfunc init() {}\n\n// Open is another Open.\nfunc Open() {}\n",
		"c/c.go":    "package c\n\nfunc Close() {}\n",
		"d/gone.go": "package d\n\nfunc Open() {}\n",
	}, t0)
	st, err := OpenStore(filepath.Join(t.TempDir(), "pebble"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := &Indexer{Root: root, Store: st, Project: NewProject(root)}
	if _, err := ix.Run(context.Background(), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if st.table() != nil {
		t.Fatal("a definition table before WarmDefinitions")
	}
	if err := st.WarmDefinitions(); err != nil {
		t.Fatal(err)
	}
	paths := []string{"a/a.go", "b/b.go", "c/c.go", "d/gone.go", "e/new.go", "missing.go"}
	names := []string{"Open", "helper", "init", "T", "Close", "Reopen", "nothing"}
	checkTable(t, st, paths, names)
	if defs, _ := st.DefsByName("Open"); len(defs) != 4 {
		t.Fatalf("DefsByName(Open) = %d definitions, want 4 (a.Open, T.Open, b.Open, d.Open)", len(defs))
	}

	// Readers while the second run commits (for -race): every answer is
	// some committed state, checked after the run.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, _ = st.DefsByName("Open")
			_, _ = st.File("b/b.go")
		}
	}()
	t1 := time.Now()
	writeTreeAt(t, root, map[string]string{
		"b/b.go":   "package b\n\nfunc init() {}\n\n// Reopen replaced Open.\nfunc Reopen() {}\n\nfunc Close() {}\n",
		"e/new.go": "package e\n\n// Open is new.\nfunc Open() {}\n",
	}, t1)
	if err := os.Remove(filepath.Join(root, "d", "gone.go")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Run(context.Background(), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	checkTable(t, st, paths, names)
	if rec, _ := st.File("d/gone.go"); rec != nil {
		t.Error("File(d/gone.go) answers after the file was removed")
	}
	if defs, _ := st.DefsByName("Reopen"); len(defs) != 1 || defs[0].Path != "b/b.go" {
		t.Errorf("DefsByName(Reopen) = %v, want the one in b/b.go", defs)
	}
}

// TestDefinitionTableAfterBulkRun warms the table of an empty store (a
// daemon started before the first index) and then runs a bulk first index
// (RunOptions.Bulk: sorted tables ingested, no batch commit): the table
// must answer as Pebble does, so a bulk ingest marks the paths it wrote.
func TestDefinitionTableAfterBulkRun(t *testing.T) {
	root := t.TempDir()
	writeTreeAt(t, root, map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.22\n",
		"a/a.go": "package a\n\n// Open opens.\nfunc Open() int { return 1 }\n",
		"b/b.go": "package b\n\n// Open is another Open.\nfunc Open() {}\n\nfunc Close() {}\n",
	}, time.Now().Add(-time.Hour))
	st, err := OpenStore(filepath.Join(t.TempDir(), "pebble"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.WarmDefinitions(); err != nil {
		t.Fatal(err)
	}
	if defs, _ := st.DefsByName("Open"); len(defs) != 0 {
		t.Fatalf("DefsByName(Open) on an empty store = %d definitions", len(defs))
	}
	ix := &Indexer{Root: root, Store: st, Project: NewProject(root)}
	if _, err := ix.Run(context.Background(), RunOptions{Bulk: true}); err != nil {
		t.Fatal(err)
	}
	checkTable(t, st, []string{"a/a.go", "b/b.go", "missing.go"}, []string{"Open", "Close", "nothing"})
	if defs, _ := st.DefsByName("Open"); len(defs) != 2 {
		t.Fatalf("DefsByName(Open) after a bulk run = %d definitions, want 2", len(defs))
	}
}
