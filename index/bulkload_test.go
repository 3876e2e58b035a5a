package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// sourcesWorkspace writes a workspace holding go.mod and this package's
// Go sources (under index/) in a temporary directory and returns its root
// and a write function (workspace-relative slash path, content) for more
// files and later edits.
func sourcesWorkspace(t *testing.T) (string, func(rel, content string)) {
	t.Helper()
	root := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	srcs, err := filepath.Glob("*.go")
	if err != nil || len(srcs) < 20 {
		t.Fatalf("this package's sources: %v, %v", srcs, err)
	}
	for _, p := range srcs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		write("index/"+p, string(b))
	}
	return root, write
}

// bulkWorkspace is sourcesWorkspace plus a few Python files (definitions
// with preceding comments, docstrings and imports).
func bulkWorkspace(t *testing.T) (string, func(rel, content string)) {
	t.Helper()
	root, write := sourcesWorkspace(t)
	write("pkg/__init__.py", "")
	write("pkg/app.py", "\"\"\"Module doc.\"\"\"\nimport os\nfrom pkg import util\n\n# Run runs.\n# Two lines.\ndef run():\n    return util.helper(os.getcwd())\n\nx = 1  # trailing\ndef after_trailing():\n    pass\n\n\n# Counter counts.\nclass Counter:\n    \"\"\"Counts.\"\"\"\n    # start is the first value.\n    start = 0\n\n    # inc adds one.\n    @staticmethod\n    def inc(n):\n        return n + 1\n")
	write("pkg/util.py", "def helper(p):\n    # not a doc of anything\n    return p\n")
	return root, write
}

// TestIndexRunBulkSameStore indexes a workspace into two new stores, one
// run with RunOptions.Bulk and one without, and checks that they hold the
// same keys and values, that the bulk store's tables were ingested at the
// bottom level (no flush, no compaction, nothing in L0) and that no
// table file is left in its directory; then edits, adds and removes files
// and checks that the next runs (on a store with records: committed
// batches) keep the stores identical. With a tiny bulkLimitBytes the run
// ingests many overlapping sets of tables, with the same result.
func TestIndexRunBulkSameStore(t *testing.T) {
	for _, c := range []struct {
		name  string
		limit int
	}{{"one ingest", bulkLimitBytes}, {"64KiB", 64 << 10}} {
		limit := c.limit
		t.Run(c.name, func(t *testing.T) {
			old := bulkLimitBytes
			bulkLimitBytes = limit
			defer func() { bulkLimitBytes = old }()
			root, write := bulkWorkspace(t)
			stores := map[bool]*Store{}
			ixs := map[bool]*Indexer{}
			for _, bulk := range []bool{false, true} {
				dir := filepath.Join(t.TempDir(), "pebble")
				st, err := OpenStore(dir, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				stores[bulk] = st
				ixs[bulk] = &Indexer{Root: root, Store: st, Project: NewProject(root)}
			}
			compare := func(step string) {
				t.Helper()
				runSameStore(t, step, [2]string{"batches", "bulk"}, [2]*Indexer{ixs[false], ixs[true]}, [2]RunOptions{{}, {Bulk: true}})
				names, err := os.ReadDir(stores[true].dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range names {
					if strings.HasPrefix(n.Name(), ingestFilePrefix) {
						t.Errorf("%s: %s left in the store", step, n.Name())
					}
				}
			}
			compare("cold index")
			m := stores[true].pdb().Metrics()
			if m.Flush.Count != 0 || m.Compact.Count != 0 || m.Levels[0].TablesCount != 0 {
				t.Errorf("bulk store: %d flushes, %d compactions, %d tables in L0; want none", m.Flush.Count, m.Compact.Count, m.Levels[0].TablesCount)
			}
			if limit == old && m.Levels[6].TablesCount == 0 {
				t.Errorf("bulk store: no table in L6:\n%s", m)
			}
			write("pkg/util.py", "# helper helps.\ndef helper(p):\n    return p\n\ndef more():\n    pass\n")
			write("pkg/new.py", "from pkg.util import helper\n\nclass New:\n    pass\n")
			if err := os.Remove(filepath.Join(root, "pkg/app.py")); err != nil {
				t.Fatal(err)
			}
			compare("re-index")
		})
	}
}

// TestIngestBatches checks ingestBatches on a store in memory: of two
// sets of one key the later wins, keys of two keyspaces and a key that
// overlaps a stored one are all readable after it, a table left by a
// dead process is removed, and batches holding a delete are refused with
// errNotSets before anything is written.
func TestIngestBatches(t *testing.T) {
	fs := vfs.NewMem()
	st, err := OpenStore("/s", fs)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	repr := func(fill func(b *pebble.Batch)) []byte {
		b := st.pdb().NewBatch()
		defer b.Close()
		fill(b)
		return append([]byte(nil), b.Repr()...)
	}
	left := fs.PathJoin("/s", ingestFilePrefix+"0.sst")
	f, err := fs.Create(left, vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	err = st.ingestBatches(context.Background(), [][]byte{
		repr(func(b *pebble.Batch) {
			_ = b.Set([]byte("y\x00b"), []byte("1"), nil)
			_ = b.Set([]byte("n\x00a"), []byte("n"), nil)
			_ = b.Set([]byte("s\x00gen"), []byte("7"), nil)
		}),
		repr(func(b *pebble.Batch) { _ = b.Set([]byte("y\x00b"), []byte("2"), nil) }),
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"y\x00b": "2", "n\x00a": "n", "s\x00gen": "7"} {
		v, closer, err := st.pdb().Get([]byte(k))
		if err != nil {
			t.Fatalf("%q: %v", k, err)
		}
		if string(v) != want {
			t.Errorf("%q = %q, want %q", k, v, want)
		}
		_ = closer.Close()
	}
	if v, err := st.schema(); err != nil || v != SchemaVersion {
		t.Errorf("schema version %d, %v after the ingest", v, err)
	}
	if _, err := fs.Stat(left); err == nil {
		t.Errorf("%s left in the store", left)
	}
	err = st.ingestBatches(context.Background(), [][]byte{
		repr(func(b *pebble.Batch) { _ = b.Set([]byte("y\x00c"), []byte("1"), nil) }),
		repr(func(b *pebble.Batch) { _ = b.Delete([]byte("y\x00b"), nil) }),
	})
	if !errors.Is(err, errNotSets) {
		t.Fatalf("batches with a delete: %v, want errNotSets", err)
	}
	if _, _, err := st.pdb().Get([]byte("y\x00c")); !errors.Is(err, pebble.ErrNotFound) {
		t.Errorf("y\\0c after a refused ingest: %v, want not found", err)
	}
}

// failIngestFS is a vfs.FS whose Create fails for the tables of
// ingestBatches once armed.
type failIngestFS struct {
	vfs.FS
	armed atomic.Bool
}

func (f *failIngestFS) Create(name string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	if f.armed.Load() && strings.HasPrefix(filepath.Base(name), ingestFilePrefix) {
		return nil, errors.New("injected: no space left on device")
	}
	return f.FS.Create(name, cat)
}

// A bulk run whose ingests run beside its parses (flushBulk) reports an
// ingest that failed: with a 64 KiB bulkLimitBytes the first tables are
// ingested while the run goes on, then every table write fails; the run
// returns an error wrapping ErrWriteFailed, the store holds fewer file
// records than the workspace has files (what the ingests before the
// failure wrote), and it closes without error (no ingest left running).
func TestIndexRunBulkIngestFails(t *testing.T) {
	old := bulkLimitBytes
	bulkLimitBytes = 64 << 10
	defer func() { bulkLimitBytes = old }()
	root, _ := bulkWorkspace(t)
	fs := &failIngestFS{FS: vfs.NewMem()}
	st, err := OpenStore("pebble", fs)
	if err != nil {
		t.Fatal(err)
	}
	var parses atomic.Int32
	ix := &Indexer{Root: root, Store: st, Project: NewProject(root)}
	restore := SetParseHook(func(string) {
		// After a few files: the first ingest has been handed over by then
		// (64 KiB of records), the next ones fail.
		if parses.Add(1) == 12 {
			fs.armed.Store(true)
		}
	})
	_, err = ix.Run(context.Background(), RunOptions{Bulk: true})
	restore()
	if !errors.Is(err, ErrWriteFailed) {
		t.Fatalf("run: %v, want an error wrapping ErrWriteFailed", err)
	}
	metas, err := st.FileMetas()
	if err != nil {
		t.Fatal(err)
	}
	w, err := Walk(root, DefaultMaxFileSize)
	if err != nil {
		t.Fatal(err)
	}
	if len(metas) >= len(w.Files) {
		t.Fatalf("%d file records of %d files after a failed ingest", len(metas), len(w.Files))
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}
