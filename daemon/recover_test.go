package daemon

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/memory"
)

// TestStartRebuildsDerived: a daemon started on a store whose search index
// is corrupt rebuilds it from Pebble at start, and replaces a stale socket
// file left by a dead daemon.
func TestStartRebuildsDerived(t *testing.T) {
	e := newEnv(t, inProcess)
	root := newRepo(t, map[string]string{"calc.go": fixtureA})
	w, err := memory.Open(root, memOpts(e.home))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Remember(context.Background(), memory.RememberRequest{Text: "overflow gotcha", Path: filepath.Join(root, "calc.go"), StartLine: 3, EndLine: 6}); err != nil {
		t.Fatal(err)
	}
	dir := w.Dir
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Corrupt the derived index and leave a stale socket behind.
	blugeDir := filepath.Join(dir, "text") // the memory text index
	if err := os.RemoveAll(blugeDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(blugeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blugeDir, "gloss-schema"), []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	paths, err := PathsFor(e.home, memory.ProjectID(root))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths.Socket, []byte("not a socket"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Start(Config{Dir: root, Memory: memOpts(e.home), Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	schema, err := os.ReadFile(filepath.Join(blugeDir, "gloss-schema"))
	if err != nil || string(schema) == "garbage\n" {
		t.Fatalf("search index not rebuilt at start: %q, %v", schema, err)
	}
	c, err := Dial(Target{Root: root, Home: e.home}, VerbLSP)
	if err != nil {
		t.Fatal(err)
	}
	cl := lspconn.NewClient(c, lspconn.ClientOptions{})
	if err := cl.Initialize(ctxT(t), root, false); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Memories []memory.View `json:"memories"`
	}
	if err := cl.Execute(ctxT(t), "gloss.search", map[string]any{"query": "overflow"}, &res); err != nil || len(res.Memories) != 1 {
		t.Fatalf("search after rebuild: %v, %d results", err, len(res.Memories))
	}
	_ = cl.Close(ctxT(t))
}
