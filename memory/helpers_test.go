package memory_test

import (
	"context"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// indexedWorkspace writes files into a new hermetic git repository, opens
// its workspace (closed when the test ends) and indexes it.
func indexedWorkspace(t *testing.T, files map[string]string) (*memory.Workspace, string) {
	t.Helper()
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, files)
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w, repo
}
