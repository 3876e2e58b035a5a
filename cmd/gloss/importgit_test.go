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
}
