package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestListStreamSameBytes: `list` (all, --stale, --type) and `list
// --json` printed from the stored summaries as they are decoded
// (printListStream, api.Engine.ListEach) are byte for byte what printing
// the whole result of Engine.List prints, on the same store: empty,
// after a batch, with a memory superseding another, after an edit and a
// check made anchors stale, and after accesses were recorded.
func TestListStreamSameBytes(t *testing.T) {
	_, repo := cliRepo(t)
	compare := func(stage string, wantMemories int) {
		t.Helper()
		for _, mode := range []string{"json", "text", "stale", "type"} {
			streamed, whole := listOutputs(t, repo, mode)
			if streamed != whole {
				t.Fatalf("%s, %s: streamed list printed\n%s\nthe whole result\n%s", stage, mode, streamed, whole)
			}
			if n := strings.Count(whole, `"title": "`); mode == "json" && n != wantMemories {
				t.Fatalf("%s: %d memories printed, want %d:\n%s", stage, n, wantMemories, whole)
			}
		}
	}
	compare("empty store", 0)
	rememberStreamFixture(t, repo)
	compare("after a batch", 4)
	if _, _, err := run(t, repo, "", "--no-daemon", "remember", "--json", "--symbol", "Retry", "--on-duplicate", "supersede",
		"Capped at three: upstream rate-limits bursts <&>"); err != nil {
		t.Fatal(err)
	}
	compare("a memory superseded", 5)
	testutil.WriteFiles(t, repo, map[string]string{"main.go": "// header\n" + strings.Replace(cliGo, "i < 3", "i < 5", 1)})
	if _, _, err := run(t, repo, "", "--no-daemon", "check"); err != nil {
		t.Fatal(err)
	}
	compare("stale after an edit", 5)
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := w.List()
	if err != nil || len(ms) == 0 {
		t.Fatal(len(ms), err)
	}
	w.RecordAccess(ms[0].ID, ms[len(ms)-1].ID)
	if err := w.Close(); err != nil { // flushes the accesses
		t.Fatal(err)
	}
	compare("after accesses", 5)
	if out, _ := listOutputs(t, repo, "json"); !strings.Contains(out, `"access_count": 1`) {
		t.Fatalf("no access counted in\n%s", out)
	}
}

// listOutputs returns what `gloss list` prints in mode (json, text, stale
// for --stale, type for --type decision) on a directly opened store:
// streamed with printListStream, and from the whole result of
// Engine.List as the daemon's listing prints it.
func listOutputs(t *testing.T, repo, mode string) (streamed, whole string) {
	t.Helper()
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e := &api.Engine{Host: api.Single{W: w}}
	keep := func(m *memory.View) bool {
		return (mode != "stale" || m.Stale) && (mode != "type" || m.Type == "decision")
	}
	var s, a bytes.Buffer
	if err := printListStream(context.Background(), &s, e, mode == "json", keep); err != nil {
		t.Fatal(err)
	}
	res, err := e.List(context.Background(), api.ListArgs{})
	if err != nil {
		t.Fatal(err)
	}
	ms := []memory.View{}
	for i := range res.Memories {
		if keep(&res.Memories[i]) {
			ms = append(ms, res.Memories[i])
		}
	}
	if mode == "json" {
		if err := printJSON(&a, struct {
			Memories []memory.View `json:"memories"`
		}{ms}); err != nil {
			t.Fatal(err)
		}
	} else {
		for _, m := range ms {
			printMemory(&a, m, false)
		}
		a.WriteString(itoa(len(ms)) + " memories\n")
	}
	return s.String(), a.String()
}

// `gloss list --limit N` prints a page and how to ask for the next one;
// `--cursor` continues after it, with --json through next_cursor; the
// pages hold what the whole list holds. An unknown --type is an error.
func TestListPagesCLI(t *testing.T) {
	_, repo := cliRepo(t)
	rememberStreamFixture(t, repo)
	whole, _, err := run(t, repo, "", "--no-daemon", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var all struct {
		Memories []memory.View `json:"memories"`
	}
	if err := json.Unmarshal([]byte(whole), &all); err != nil || len(all.Memories) != 4 {
		t.Fatalf("whole list: %d memories, %v\n%s", len(all.Memories), err, whole)
	}
	var ids []string
	cursor := ""
	for pages := 0; pages < 3; pages++ {
		args := []string{"--no-daemon", "list", "--json", "--limit", "3"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		out, _, err := run(t, repo, "", args...)
		if err != nil {
			t.Fatal(err)
		}
		var page api.ListResult
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, v := range page.Memories {
			ids = append(ids, v.ID)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(ids) != 4 {
		t.Fatalf("pages listed %v", ids)
	}
	for i, v := range all.Memories {
		if ids[i] != v.ID {
			t.Fatalf("pages listed %v, the whole list %v", ids, all.Memories)
		}
	}
	text, _, err := run(t, repo, "", "--no-daemon", "list", "--limit", "3")
	if err != nil || !strings.Contains(text, "3 memories\nmore: gloss list --limit 3 --cursor ") {
		t.Fatalf("text page: %v\n%s", err, text)
	}
	if _, _, err := run(t, repo, "", "--no-daemon", "list", "--type", "gotchas"); err == nil || !strings.Contains(err.Error(), `type "gotchas": not one of`) {
		t.Fatalf("unknown type: %v", err)
	}
}
