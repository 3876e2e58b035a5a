package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestCheckStreamSameBytes: `check` (all, --stale) and `check --json`
// printed as the memories are decoded (printCheckStream) are byte for
// byte what printing the whole result of Engine.Check prints, apart from
// the elapsed time and the time anchors went stale (now), on the same store: empty, before the first check,
// with nothing changed, and after an edit that makes anchors stale. Each
// pair starts from one copy of GLOSS_HOME.
func TestCheckStreamSameBytes(t *testing.T) {
	gh, repo := cliRepo(t)
	if _, _, err := run(t, repo, "", "--no-daemon", "index"); err != nil {
		t.Fatal(err)
	}
	elapsed := regexp.MustCompile(`"elapsed_ms": [0-9.e+-]+|re-resolved in [0-9.]+[a-zµ]*s|"stale_since": "[^"]+"`)
	restore := func(snap string) {
		if err := os.RemoveAll(gh); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(gh, os.DirFS(snap)); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(stage string, wantMemories int) {
		t.Helper()
		snap := t.TempDir()
		if err := os.CopyFS(snap+"/h", os.DirFS(gh)); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"json", "text", "stale"} {
			restore(snap + "/h")
			streamed := checkOutput(t, repo, true, mode)
			restore(snap + "/h")
			whole := checkOutput(t, repo, false, mode)
			s, w := elapsed.ReplaceAllString(streamed, "E"), elapsed.ReplaceAllString(whole, "E")
			if s != w {
				t.Fatalf("%s, %s: streamed check printed\n%s\nthe whole result\n%s", stage, mode, streamed, whole)
			}
			if n := strings.Count(w, `"id": "`); mode == "json" && n != wantMemories {
				t.Fatalf("%s: %d memories printed, want %d:\n%s", stage, n, wantMemories, w)
			}
		}
	}
	compare("empty store", 0)
	rememberStreamFixture(t, repo)
	compare("before the first check", 4)
	if _, _, err := run(t, repo, "", "--no-daemon", "check"); err != nil {
		t.Fatal(err)
	}
	compare("nothing changed", 4)
	testutil.WriteFiles(t, repo, map[string]string{"main.go": "// header\n" + strings.Replace(cliGo, "i < 3", "i < 5", 1)})
	compare("after an edit", 4)
}

// rememberStreamFixture stores the batch the stream tests print: memories
// of several types and tags, a one-line span, text that JSON escapes, and
// a memory without a place.
func rememberStreamFixture(t *testing.T, repo string) {
	t.Helper()
	batch := strings.Join([]string{
		`{"text":"Capped at 3: upstream rate-limits bursts <&>","at":"main.go:4-12","type":"gotcha","tags":["retry","net"]}`,
		`{"text":"span inside\n\"quoted\"","at":"main.go:6-6","title":"loop bound"}`,
		`{"text":"uploads are counted twice","at":"main.go:14-17","type":"decision"}`,
		`{"text":"the project has no configuration file at all"}`,
	}, "\n")
	if _, _, err := run(t, repo, batch, "--no-daemon", "remember", "--batch", "-", "--json"); err != nil {
		t.Fatal(err)
	}
}

// checkOutput runs the check of repo on a directly opened store and
// returns what `gloss check` prints in mode (json, text, or stale for
// --stale): streamed with printCheckStream, or from the whole result
// of Engine.Check as printed before it.
func checkOutput(t *testing.T, repo string, streamed bool, mode string) string {
	t.Helper()
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e := &api.Engine{Host: api.Single{W: w}, IndexFirst: true}
	var out bytes.Buffer
	if streamed {
		if _, err := printCheckStream(context.Background(), &out, e, mode == "json", mode == "stale"); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	res, err := e.Check(context.Background(), api.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if mode == "json" {
		if err := printCheckJSON(&out, res); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	for _, m := range res.Memories {
		if mode != "stale" || m.Stale {
			printMemory(&out, m, false)
		}
	}
	printProblems(&out, res.Problems)
	printCheckLine(&out, res, len(res.Memories))
	return out.String()
}
