package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// checkJSON runs `gloss check --json` in dir and returns each memory's
// anchor statuses and lines by id.
func checkJSON(t *testing.T, dir string) map[string]string {
	t.Helper()
	out, _, err := run(t, dir, "", "check", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Memories []struct {
			ID      string `json:"id"`
			Scope   string `json:"scope"`
			Anchors []struct {
				Status    string `json:"status"`
				StartLine int    `json:"start_line"`
				EndLine   int    `json:"end_line"`
			} `json:"anchors"`
		} `json:"memories"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := map[string]string{}
	for _, m := range res.Memories {
		var parts []string
		for _, a := range m.Anchors {
			parts = append(parts, a.Status+"@"+itoa(a.StartLine)+"-"+itoa(a.EndLine))
		}
		got[m.ID] = m.Scope + " " + strings.Join(parts, ",")
	}
	return got
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestTeamMemoriesTwoClones: A remembers a project memory, commits and
// pushes; B (another clone, another GLOSS_HOME) pulls and sees it with the
// same statuses; B changes the code and pushes; A pulls and sees it stale.
func TestTeamMemoriesTwoClones(t *testing.T) {
	homeA := testutil.Hermetic(t)
	homeB := filepath.Join(t.TempDir(), "gloss-home-b")
	bare := filepath.Join(t.TempDir(), "remote.git")
	testutil.Git(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	a := testutil.InitRepo(t)
	testutil.WriteFiles(t, a, map[string]string{"go.mod": "module example.com/cli\n", "main.go": cliGo})
	testutil.Commit(t, a, "code")
	testutil.Git(t, a, "remote", "add", "origin", bare)
	testutil.Git(t, a, "push", "-q", "-u", "origin", "main")

	if _, _, err := run(t, a, "", "index"); err != nil {
		t.Fatal(err)
	}
	batch := `{"text":"Capped at 3: upstream rate-limits bursts","at":"main.go:4-12","scope":"project"}
{"text":"the loop bound","at":"main.go:6-6","scope":"project"}
{"text":"personal note","at":"main.go:14-17"}`
	out, _, err := run(t, a, batch, "remember", "--batch", "-", "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	testutil.Commit(t, a, "memories")
	testutil.Git(t, a, "push", "-q")
	wantA := checkJSON(t, a)

	// B clones with its own data home.
	t.Setenv("GLOSS_HOME", homeB)
	parent := t.TempDir()
	testutil.Git(t, parent, "clone", "-q", bare, "b")
	b, _ := filepath.EvalSymlinks(filepath.Join(parent, "b"))
	gotB := checkJSON(t, b)
	if len(gotB) != 2 {
		t.Fatalf("B sees %v, want the 2 project memories of %v", gotB, wantA)
	}
	for id, st := range gotB {
		if wantA[id] != st {
			t.Errorf("memory %s: A %q, B %q", id, wantA[id], st)
		}
	}
	out, _, err = run(t, b, "", "list")
	if err != nil || strings.Count(out, "ok   ") != 2 {
		t.Errorf("B list: %v\n%s", err, out)
	}

	// B changes Retry's body, commits and pushes.
	testutil.WriteFiles(t, b, map[string]string{"main.go": strings.Replace(cliGo, "i < 3", "i < 5", 1)})
	testutil.Commit(t, b, "retry 5")
	testutil.Git(t, b, "push", "-q")
	gotB = checkJSON(t, b)

	// A pulls: its check says stale, as B's does.
	t.Setenv("GLOSS_HOME", homeA)
	testutil.Git(t, a, "pull", "-q", "--ff-only")
	gotA := checkJSON(t, a)
	stale := 0
	for id, st := range gotB {
		if gotA[id] != st {
			t.Errorf("after pull, memory %s: A %q, B %q", id, gotA[id], st)
		}
		if strings.Contains(st, "changed") {
			stale++
		}
	}
	if stale != 2 || len(gotA) != 3 {
		t.Errorf("A after pull: %v (B: %v)", gotA, gotB)
	}
	if _, _, err := run(t, a, "", "check", "--exit-code"); err == nil {
		t.Errorf("check --exit-code: want exit 3")
	}
	if _, err := os.Stat(homeB); err != nil {
		t.Errorf("B's data home: %v", err)
	}
}

// TestShareExportImport: share and unshare move a memory between scopes
// (its file follows); export in each format; forget --all needs --yes;
// import restores the export and is idempotent by id.
func TestShareExportImport(t *testing.T) {
	_, repo := cliRepo(t)
	remember := func(args ...string) string {
		out, _, err := run(t, repo, "", append([]string{"remember", "--json"}, args...)...)
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var v struct{ ID string }
		json.Unmarshal([]byte(out), &v)
		return v.ID
	}
	p := remember("Capped at 3", "--at", "main.go:4-12", "--type", "gotcha")
	q := remember("counted twice", "--at", "main.go:15-15", "--scope", "project")
	file := func(id string) string { return filepath.Join(repo, ".gloss", "memories", id+".md") }
	exists := func(id string) bool { _, err := os.Stat(file(id)); return err == nil }
	if exists(p) || !exists(q) {
		t.Fatalf("files before share: %v %v", exists(p), exists(q))
	}
	if out, _, err := run(t, repo, "", "share", p); err != nil || !strings.Contains(out, "Shared "+p) {
		t.Fatalf("share: %v %s", err, out)
	}
	if out, _, err := run(t, repo, "", "unshare", q); err != nil || !strings.Contains(out, "scope personal") {
		t.Fatalf("unshare: %v %s", err, out)
	}
	if !exists(p) || exists(q) {
		t.Fatalf("files after share/unshare: %v %v", exists(p), exists(q))
	}
	scopes := func() map[string]string {
		got := checkJSON(t, repo)
		for id, s := range got {
			got[id] = strings.Fields(s)[0]
		}
		return got
	}
	if got := scopes(); got[p] != "project" || got[q] != "personal" || len(got) != 2 {
		t.Fatalf("scopes after share/unshare: %v", got)
	}

	dir := t.TempDir()
	for _, f := range []string{"json", "markdown", "claude-md"} {
		if _, _, err := run(t, repo, "", "export", "--format", f, "-o", filepath.Join(dir, "out."+f)); err != nil {
			t.Fatal(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "out.claude-md"))
	if !strings.Contains(string(md), "## main.go") || !strings.Contains(string(md), "[gloss:"+p+"]") || !strings.Contains(string(md), "Capped at 3") {
		t.Errorf("claude-md export:\n%s", md)
	}
	if _, _, err := run(t, repo, "", "export", "--format", "yaml"); err == nil {
		t.Errorf("unknown export format: want an error")
	}

	if _, _, err := run(t, repo, "", "forget", "--all"); err == nil || len(checkJSON(t, repo)) != 2 {
		t.Fatalf("forget --all without --yes: %v", err)
	}
	for _, f := range []string{"json", "markdown"} {
		if out, _, err := run(t, repo, "", "forget", "--all", "--yes"); err != nil || !strings.Contains(out, "Forgot 2 memories") {
			t.Fatalf("forget --all --yes: %v %s", err, out)
		}
		if len(checkJSON(t, repo)) != 0 || exists(p) {
			t.Fatalf("memories left after forget --all")
		}
		out, _, err := run(t, repo, "", "import", filepath.Join(dir, "out."+f))
		if err != nil || !strings.Contains(out, "2 imported, 0 already known") {
			t.Fatalf("import %s: %v %s", f, err, out)
		}
		out, _, err = run(t, repo, "", "import", filepath.Join(dir, "out."+f))
		if err != nil || !strings.Contains(out, "0 imported, 2 already known") {
			t.Fatalf("import %s again: %v %s", f, err, out)
		}
		got := checkJSON(t, repo)
		if got[p] != "project fresh@4-12" || got[q] != "personal fresh@15-15" || !exists(p) || exists(q) {
			t.Fatalf("after import %s: %v", f, got)
		}
	}
	// A directory of memory files.
	mdDir := filepath.Join(dir, "md")
	os.Mkdir(mdDir, 0o755)
	data, _ := os.ReadFile(file(p))
	os.WriteFile(filepath.Join(mdDir, p+".md"), data, 0o644)
	os.WriteFile(filepath.Join(mdDir, "bad.md"), []byte("---\ntype: [\n---\nx\n"), 0o644)
	out, _, err := run(t, repo, "", "import", mdDir)
	if err == nil || !strings.Contains(out, "0 imported, 1 already known, 1 failed") {
		t.Errorf("import dir: %v %s", err, out)
	}
}

// TestCheckGitHubFormat: `check --format github` prints one ::warning
// annotation per stale anchor and per unloadable memory file, and
// --exit-code fails on either.
func TestCheckGitHubFormat(t *testing.T) {
	_, repo := cliRepo(t)
	out, _, err := run(t, repo, "", "remember", "Capped at 3, see: incident", "--at", "main.go:4-12", "--scope", "project", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ ID string }
	json.Unmarshal([]byte(out), &v)
	bad := v.ID[:25] + "Z"
	if bad == v.ID {
		bad = v.ID[:25] + "Y"
	}
	if out, _, err := run(t, repo, "", "check", "--format", "github", "--exit-code"); err != nil || !strings.Contains(out, "0 stale, 0 memory file problems") {
		t.Fatalf("clean check: %v\n%s", err, out)
	}
	testutil.WriteFiles(t, repo, map[string]string{
		"main.go":                        strings.Replace(cliGo, "i < 3", "i < 5", 1),
		".gloss/memories/" + bad + ".md": "---\nid: x\n<<<<<<< HEAD\ntype: note\n=======\ntype: gotcha\n>>>>>>> other\n---\nx\n",
	})
	out, _, err = run(t, repo, "", "check", "--format", "github", "--exit-code")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 3 {
		t.Errorf("exit = %v, want 3", err)
	}
	text, _, _ := run(t, repo, "", "check")
	if !strings.Contains(text, "warning: .gloss/memories/"+bad+".md:3: unresolved merge conflict") {
		t.Errorf("text output lacks the problem:\n%s", text)
	}
	for _, want := range []string{
		"::warning file=main.go,line=4,endLine=12,title=gloss%3A stale memory (changed)::Capped at 3, see: incident [gloss:" + v.ID + "]: the code this memory describes is changed.",
		"%0ARun `gloss show " + v.ID + "`",
		"::warning file=.gloss/memories/" + bad + ".md,line=3,title=gloss%3A memory file not loaded::unresolved merge conflict",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
