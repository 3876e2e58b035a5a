package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// import-git prints counts and skips; --json the result; a second run
// finds nothing new; a bad --since is an error.
func TestImportGitVerb(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/cli\n", "main.go": cliGo})
	testutil.Commit(t, repo, "Retry three times because the upstream drops connections")
	testutil.WriteFiles(t, repo, map[string]string{"README.md": "# cli\n"})
	testutil.Commit(t, repo, "wip")
	out, _, err := run(t, repo, "", "--no-daemon", "import-git")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 commits examined, 1 memories created") || !strings.Contains(out, "skipped routine_message:") {
		t.Errorf("import-git output:\n%s", out)
	}
	out, _, err = run(t, repo, "", "--no-daemon", "import-git", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Commits     int  `json:"commits"`
		Created     int  `json:"created"`
		Incremental bool `json:"incremental"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Commits != 0 || res.Created != 0 || !res.Incremental {
		t.Errorf("second run: %s (%v)", out, err)
	}
	out, _, err = run(t, repo, "", "--no-daemon", "list", "--json")
	if err != nil || !strings.Contains(out, `"decision"`) || !strings.Contains(out, "imported_git") {
		t.Errorf("list after import: %s (%v)", out, err)
	}
	if _, _, err := run(t, repo, "", "--no-daemon", "import-git", "--since", "yesterday-ish"); err == nil {
		t.Error("bad --since: no error")
	}
	testCheckImported(t, repo)
}

// testCheckImported: a stale imported memory is reported but does not
// fail `check --exit-code` (it describes older code); a stale
// hand-written one does.
func testCheckImported(t *testing.T, repo string) {
	testutil.WriteFiles(t, repo, map[string]string{"main.go": strings.Replace(cliGo, "i < 3", "i < 5", 1)})
	out, _, err := run(t, repo, "", "--no-daemon", "check", "--exit-code")
	if err != nil || !strings.Contains(out, "1 stale (1 of them imported git history)") {
		t.Errorf("check --exit-code with a stale imported memory: %v\n%s", err, out)
	}
	// status counts them apart as check does.
	out, _, err = run(t, repo, "", "--no-daemon", "status")
	if err != nil || !strings.Contains(out, "memories:  1, 1 stale (1 of them imported git history)") || !strings.Contains(out, "imported:  1 from git history") {
		t.Errorf("status with a stale imported memory: %v\n%s", err, out)
	}
	out, _, err = run(t, repo, "", "--no-daemon", "status", "--json")
	if err != nil || !strings.Contains(out, `"imported_git": 1`) || !strings.Contains(out, `"stale_imported_git": 1`) {
		t.Errorf("status --json with a stale imported memory: %v\n%s", err, out)
	}
	out, _, err = run(t, repo, "", "--no-daemon", "check", "--format", "github", "--exit-code")
	if err != nil || strings.Contains(out, "::warning") {
		t.Errorf("check --format github with a stale imported memory: %v\n%s", err, out)
	}
	if _, _, err := run(t, repo, "", "--no-daemon", "remember", "Five tries now", "--at", "main.go:4-12"); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFiles(t, repo, map[string]string{"main.go": strings.Replace(cliGo, "i < 3", "i < 7", 1)})
	if out, _, err := run(t, repo, "", "--no-daemon", "check", "--exit-code"); err == nil {
		t.Errorf("check --exit-code with a stale hand-written memory: want exit 3\n%s", out)
	}
}
