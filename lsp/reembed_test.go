package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// A retraining of the built-in embedder (here made due by its state,
// then run by gloss.index) reports its re-embedding of the memories as
// work-done progress on a token of its own: begin, reports, end.
func TestReembedProgress(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	rememberRetry(t, c)
	w := c.srv.allFolders()[0].w
	if _, err := w.VectorSearch(t.Context(), "retry cap", 5); err != nil { // the model and index exist
		t.Fatal(err)
	}
	path := filepath.Join(w.Dir, "vectors", "builtin.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	st["changed"] = 1000
	data, _ = json.Marshal(st)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var res json.RawMessage
	if err := c.command("gloss.index", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	if _, running := w.Reembedding(); running {
		t.Fatal("a re-embedding still running after gloss.index returned")
	}
	var kinds []string
	c.waitFor("re-embedding progress end", func() bool {
		for tok, ks := range c.progress {
			if strings.HasPrefix(tok, "gloss-reembed-") && len(ks) > 0 && ks[len(ks)-1] == "end" {
				kinds = ks
				return true
			}
		}
		return false
	})
	if kinds[0] != "begin" || len(kinds) < 3 || kinds[1] != "report" {
		t.Fatalf("re-embedding progress %v, want begin, reports, end", kinds)
	}
	c.mu.Lock()
	titles := strings.Join(c.titles, "|")
	c.mu.Unlock()
	if !strings.Contains(titles, "gloss: re-embedding memories") {
		t.Fatalf("progress titles %q", titles)
	}
	var s memory.Status
	if s, err = w.Status(); err != nil || s.Reembedding != nil {
		t.Fatalf("status after the re-embedding: %+v, %v", s.Reembedding, err)
	}
}
