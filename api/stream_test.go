package api_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// twoHost is a Host of two workspaces.
type twoHost struct{ ws []*memory.Workspace }

func (h twoHost) Workspaces() []*memory.Workspace                 { return h.ws }
func (twoHost) Document(string) ([]byte, bool)                    { return nil, false }
func (twoHost) Changed(*memory.Workspace, []*memory.Memory, bool) {}
func (twoHost) Indexed(*memory.Workspace, index.Stats)            {}
func (twoHost) ShowDocument(string)                               {}

// A stream whose items go to two workspaces, by symbol and nowhere is
// stored as a batch per run: every item is reported once under its
// stream index, with its memory in the workspace its place names (or the
// error of an item that cannot be placed), and each workspace's items
// in stream order.
func TestRememberStream(t *testing.T) {
	home := testutil.Hermetic(t)
	var ws []*memory.Workspace
	for _, name := range []string{"a", "b"} {
		repo := testutil.InitRepo(t)
		testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/" + name + "\n", "service.go": serviceGo})
		testutil.Commit(t, repo, "init")
		w, err := memory.Open(repo, memory.Options{Home: filepath.Join(home, name), Author: "test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		ws = append(ws, w)
	}
	e := &api.Engine{Host: twoHost{ws}, IndexFirst: true}
	ctx := context.Background()
	var items []api.RememberArgs
	want := map[int]string{} // item → workspace root, or "error"
	for i := range 2*memory.RememberChunk + 300 {
		w := ws[0]
		if i >= 1500 && i%3 == 0 { // runs of a, broken by b's items
			w = ws[1]
		}
		it := api.RememberArgs{Text: fmt.Sprintf("note %d", i), Location: api.Location{URI: api.PathToURI(filepath.Join(w.Root, "service.go")), Range: api.LinesRange(4, 6)}}
		want[i] = w.Root
		switch {
		case i%500 == 7:
			it.Range = api.LinesRange(900, 901) // out of range
			want[i] = "error"
		case i%700 == 11 || i == 0:
			it.Location, it.Symbol = api.Location{}, "Fetch" // the first workspace that defines it
			want[i] = ws[0].Root
		}
		items = append(items, it)
	}
	got := map[int]string{}
	var order = map[string][]int{}
	err := e.RememberStream(ctx, slices.Values(items), 0, func(i int, it api.BatchItem) {
		if _, dup := got[i]; dup {
			t.Fatalf("item %d reported twice", i)
		}
		switch {
		case it.Error != "":
			got[i] = "error"
		case it.Memory == nil:
			t.Fatalf("item %d: neither memory nor error", i)
		default:
			for _, w := range ws {
				if m, err := w.Get(it.Memory.ID); err == nil && m != nil {
					got[i] = w.Root
					if items[i].Symbol == "" {
						order[w.Root] = append(order[w.Root], i)
					}
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		if got[i] != want[i] {
			t.Errorf("item %d: stored in %q, want %q", i, got[i], want[i])
		}
	}
	for root, is := range order {
		if !slices.IsSorted(is) {
			t.Errorf("%s: items reported out of stream order", root)
		}
	}
}
