package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// run executes the CLI in-process with args and returns stdout, stderr and
// the error.
func run(t *testing.T, dir string, stdin string, args ...string) (string, string, error) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(append([]string{"-C", dir}, args...))
	err := root.Execute()
	return out.String(), errb.String(), err
}

// cliRepo makes a hermetic GLOSS_HOME (testutil.Hermetic) and a git
// repository holding go.mod and main.go (cliGo) in one commit; it returns
// the home and the repository's root.
func cliRepo(t *testing.T) (home, repo string) {
	t.Helper()
	home = testutil.Hermetic(t)
	repo = testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/cli\n", "main.go": cliGo})
	testutil.Commit(t, repo, "init")
	return home, repo
}

const cliGo = `package main

// Retry retries f up to three times.
func Retry(f func() error) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}

func createFileUploads() int {
	n := 1
	return n + 1
}
`

func TestCLI(t *testing.T) {
	_, repo := cliRepo(t)

	out, _, err := run(t, repo, "", "index", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Files         int            `json:"files"`
		SymbolsByLang map[string]int `json:"symbols_by_language"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Files != 1 || st.SymbolsByLang["go"] != 2 {
		t.Fatalf("index --json = %s (%v)", out, err)
	}

	batch := strings.Join([]string{
		`{"text":"Capped at 3: upstream rate-limits bursts","at":"main.go:4-12","type":"gotcha","tags":["retry"]}`,
		`{"text":"no lines","at":"main.go"}`,
		`{"text":"span inside","at":"main.go:6-6","title":"loop bound"}`,
		`not json`,
		`{"text":"outside","at":"../elsewhere.go:1-2"}`,
		`{"text":"uploads are counted twice","at":"main.go:14-17","type":"decision"}`,
	}, "\n")
	out, _, err = run(t, repo, batch, "remember", "--batch", "-", "--json")
	if err == nil {
		t.Errorf("batch with bad lines: want a non-zero exit")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 {
		t.Fatalf("batch printed %d lines, want 6 (one per input line):\n%s", len(lines), out)
	}
	var ids []string
	for i, l := range lines {
		var v struct {
			ID      string `json:"id"`
			Error   string `json:"error"`
			Anchors []struct {
				Kind      string `json:"kind"`
				StartLine int    `json:"start_line"`
				EndLine   int    `json:"end_line"`
			} `json:"anchors"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, l)
		}
		wantOK := i == 0 || i == 2 || i == 5
		if wantOK != (v.ID != "") {
			t.Errorf("line %d: %s", i, l)
		}
		if v.ID != "" {
			ids = append(ids, v.ID)
		}
		if i == 0 && (v.Anchors[0].Kind != "symbol" || v.Anchors[0].StartLine != 4 || v.Anchors[0].EndLine != 12) {
			t.Errorf("line 0 anchor: %s", l)
		}
		if i == 2 && v.Anchors[0].Kind != "span" {
			t.Errorf("line 2 anchor: %s", l)
		}
		if i == 4 && !strings.Contains(v.Error, "outside the workspace") {
			t.Errorf("line 4 error: %s", v.Error)
		}
	}

	// Edit one token in Retry's body: the symbol and span memories go stale.
	src := strings.Replace(cliGo, "i < 3", "i < 5", 1)
	testutil.WriteFiles(t, repo, map[string]string{"main.go": "// header\n" + src})
	out, _, err = run(t, repo, "", "check", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var chk struct {
		Memories []struct {
			ID      string `json:"id"`
			Title   string `json:"title"`
			Stale   bool   `json:"stale"`
			Anchors []struct {
				Path      string `json:"path"`
				Symbol    string `json:"symbol"`
				StartLine int    `json:"start_line"`
				EndLine   int    `json:"end_line"`
				Status    string `json:"status"`
			} `json:"anchors"`
		} `json:"memories"`
	}
	if err := json.Unmarshal([]byte(out), &chk); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range chk.Memories {
		a := m.Anchors[0]
		got[m.ID] = a.Status
		if m.ID == ids[1] && (a.StartLine != 7 || a.EndLine != 7) {
			t.Errorf("span moved to %d-%d, want 7-7", a.StartLine, a.EndLine)
		}
		if m.ID == ids[2] && (a.StartLine != 15 || a.EndLine != 18) {
			t.Errorf("createFileUploads at %d-%d, want 15-18", a.StartLine, a.EndLine)
		}
	}
	if got[ids[0]] != "changed" || got[ids[1]] != "changed" || got[ids[2]] != "moved" {
		t.Errorf("statuses = %v", got)
	}
	if _, _, err := run(t, repo, "", "check", "--exit-code"); err == nil {
		t.Errorf("check --exit-code with stale memories: want exit 3")
	}

	out, _, err = run(t, repo, "", "search", "file upload", "--json")
	if err != nil || !strings.Contains(out, ids[2]) {
		t.Errorf("search by split identifier: %v %s", err, out)
	}
	out, _, err = run(t, repo, "", "at", "main.go:8", "--json")
	if err != nil || !strings.Contains(out, ids[0]) || strings.Contains(out, ids[2]) {
		t.Errorf("at main.go:8: %v %s", err, out)
	}
	if _, _, err := run(t, repo, "", "verify", ids[0]); err != nil {
		t.Fatal(err)
	}
	out, _, _ = run(t, repo, "", "show", ids[0], "--json")
	if !strings.Contains(out, `"status": "fresh"`) {
		t.Errorf("after verify: %s", out)
	}
	if _, _, err := run(t, repo, "", "forget", ids[1]); err != nil {
		t.Fatal(err)
	}
	out, _, _ = run(t, repo, "", "status", "--json")
	if !strings.Contains(out, `"memories": 2`) {
		t.Errorf("status after forget: %s", out)
	}

	// Bad input: clear errors, nothing stored.
	for _, args := range [][]string{
		{"remember", "x", "--at", "main.go:0-1"},
		{"remember", "x", "--at", "main.go:5-2"},
		{"remember", "x", "--at", "main.go:900-901"},
		{"remember", "x", "--at", filepath.Join(os.TempDir(), "nope.go") + ":1"},
		{"remember", "x", "--at", "main.go:4", "--type", "rumour"},
		{"remember", "password = hunter2hunter2", "--at", "main.go:4"},
		{"show", "01NOTANID"},
	} {
		if _, _, err := run(t, repo, "", args...); err == nil {
			t.Errorf("%v: want an error", args)
		}
	}
	out, _, _ = run(t, repo, "", "status", "--json")
	if !strings.Contains(out, `"memories": 2`) {
		t.Errorf("bad input changed the store: %s", out)
	}
}
