package api_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestPruneAndVerifyAll drives expiry, prune (dry, personal only, then
// project with yes), restore of a pruned memory and verifyAll through
// the wire (Client over Dispatch) with a simulated clock.
func TestPruneAndVerifyAll(t *testing.T) {
	home := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/service\n", "service.go": serviceGo})
	testutil.Commit(t, repo, "init")
	clock := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	w, err := memory.Open(repo, memory.Options{Home: home, Author: "test", Embedder: "none", Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	e := &api.Engine{Host: api.Single{W: w}, IndexFirst: true}
	c := api.Client{Caller: loopback{e}}
	ctx := context.Background()
	if _, err := c.Remember(ctx, api.RememberArgs{Symbol: "retry", Text: "retry caps at 3", Expires: "yesterday"}); err == nil {
		t.Fatal("remember with a bad expiry: no error")
	}
	personal, err := c.Remember(ctx, api.RememberArgs{Symbol: "retry", Text: "retry caps at 3", Expires: "10d"})
	if err != nil {
		t.Fatal(err)
	}
	project, err := c.Remember(ctx, api.RememberArgs{Symbol: "Fetch", Text: "Fetch retries", Scope: memory.ScopeProject, Expires: "10d"})
	if err != nil {
		t.Fatal(err)
	}
	keep, err := c.Remember(ctx, api.RememberArgs{Symbol: "Server.Handle", Text: "Handle is the entry point", Pinned: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := clock.AddDate(0, 0, 10); !personal.ExpiresAt.Equal(want) || !keep.Pinned {
		t.Fatalf("expires %v (want %v), pinned %v", personal.ExpiresAt, want, keep.Pinned)
	}

	clock = clock.AddDate(0, 0, 11)
	dry, err := c.Prune(ctx, api.PruneArgs{DryRun: true})
	if err != nil || dry.Pruned != 0 || len(dry.Items) != 2 {
		t.Fatalf("prune --dry-run: %+v %v", dry, err)
	}
	if all, _ := w.List(); len(all) != 3 {
		t.Fatalf("a dry run forgot memories: %d left", len(all))
	}
	res, err := c.Prune(ctx, api.PruneArgs{})
	if err != nil || res.Pruned != 1 {
		t.Fatalf("prune: %+v %v", res, err)
	}
	for _, it := range res.Items {
		if (it.ID == project.ID) != (it.Skipped != "") || it.Reason != memory.ReasonExpired {
			t.Errorf("prune item %s: reason %s skipped %q", it.ID, it.Reason, it.Skipped)
		}
	}
	file := w.MemoryFile(&memory.Memory{ID: project.ID, Scope: memory.ScopeProject})
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the project memory's file was touched without yes: %v", err)
	}
	if _, err := c.Restore(ctx, api.IDArgs{ID: personal.ID}); err != nil {
		t.Fatalf("restore a pruned memory: %v", err)
	}
	res, err = c.Prune(ctx, api.PruneArgs{Yes: true})
	if err != nil || res.Pruned != 2 {
		t.Fatalf("prune --yes: %+v %v", res, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("prune --yes left the project memory's file: %v", err)
	}

	if _, err := c.VerifyAll(ctx, api.VerifyAllArgs{}); err == nil {
		t.Error("verifyAll with no selection: no error")
	}
	clock = clock.AddDate(0, 1, 0)
	v, err := c.VerifyAll(ctx, api.VerifyAllArgs{AllFresh: true, Path: "*.go"})
	if err != nil || len(v.Verified) != 1 || v.Verified[0].ID != keep.ID || !v.Verified[0].VerifiedAt.Equal(clock) {
		t.Fatalf("verifyAll: %+v %v", v, err)
	}
}
