package memory_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/memfile"
)

const teamGo = `package team

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

func Other() int {
	n := 1
	return n + 1
}
`

// teamRepo is a committed repository with team.go, its open workspace and
// a committed project memory on Retry plus a personal memory on Other.
type teamRepo struct {
	w                  *memory.Workspace
	repo               string
	project, personal  *memory.Memory
	codeCommit, memCom string
	warned             []error
}

func newTeamRepo(t *testing.T) *teamRepo {
	t.Helper()
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/team\n", "team.go": teamGo})
	tr := &teamRepo{repo: repo, codeCommit: testutil.Commit(t, repo, "code")}
	w, err := memory.Open(repo, memory.Options{Warn: func(err error) { tr.warned = append(tr.warned, err) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	tr.w = w
	ctx := context.Background()
	if _, err := tr.w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	first, last := testutil.DefLines(t, teamGo, "func Retry")
	if tr.project, err = tr.w.Remember(ctx, memory.RememberRequest{Text: "Capped at 3: upstream rate-limits", Path: filepath.Join(repo, "team.go"), StartLine: first, EndLine: last, Scope: memory.ScopeProject}); err != nil {
		t.Fatal(err)
	}
	l := testutil.LineOf(t, teamGo, "n := 1")
	if tr.personal, err = tr.w.Remember(ctx, memory.RememberRequest{Text: "mine only", Path: filepath.Join(repo, "team.go"), StartLine: l}); err != nil {
		t.Fatal(err)
	}
	tr.memCom = testutil.Commit(t, repo, "memory")
	return tr
}

func openWS(t *testing.T, dir string) *memory.Workspace {
	t.Helper()
	w, err := memory.Open(dir, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func (tr *teamRepo) file(id string) string {
	return filepath.Join(tr.repo, ".gloss", "memories", id+".md")
}

// ids returns the ids of w's memories with their first anchor's status.
func ids(t *testing.T, w *memory.Workspace) map[string]string {
	t.Helper()
	ms, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range ms {
		st := ""
		if len(m.Anchors) > 0 {
			st = m.Anchors[0].Status
		}
		out[m.ID] = st
	}
	return out
}

func check(t *testing.T, w *memory.Workspace) memory.CheckResult {
	t.Helper()
	res, err := w.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestMemoryFileFormat: the file carries the anchor's full definition and
// parses back to it.
func TestMemoryFileFormat(t *testing.T) {
	tr := newTeamRepo(t)
	data, err := os.ReadFile(tr.file(tr.project.ID))
	if err != nil {
		t.Fatal(err)
	}
	h, body, err := memfile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	a, fa := tr.project.Anchors[0], h.Anchors[0]
	if body != tr.project.Body || fa.BodyHash != a.BodyHash || fa.SignatureHash != a.SignatureHash || fa.ContentHash != a.ContentHash ||
		string(fa.Snapshot) != a.Snapshot || fa.Kind != "symbol" || fa.GitCommit != tr.codeCommit || h.Source != "user" || fa.Lines != "4-12" {
		t.Fatalf("file does not carry the anchor:\n%s", data)
	}
	if _, err := os.Stat(tr.file(tr.personal.ID)); !os.IsNotExist(err) {
		t.Errorf("personal memory has a file")
	}
	// The store's copy is in step with the file: a check loads nothing.
	if res := check(t, tr.w); res.Files.Changed() || len(res.Files.Problems) > 0 || len(res.Files.Written) > 0 {
		t.Errorf("check after remember: %+v", res.Files)
	}
}

// TestCheckoutAwayAndBack: a checkout that removes a project memory's file
// hides the memory; checking out the commit with the file brings it back
// with its status. Personal memories are untouched.
func TestCheckoutAwayAndBack(t *testing.T) {
	tr := newTeamRepo(t)
	testutil.Git(t, tr.repo, "checkout", "-q", tr.codeCommit)
	res := check(t, tr.w)
	got := ids(t, tr.w)
	if _, ok := got[tr.project.ID]; ok || got[tr.personal.ID] != "fresh" || len(got) != 1 {
		t.Fatalf("after checkout without the file: %v (sync %+v)", got, res.Files)
	}
	if hits, _ := tr.w.Search(context.Background(), "upstream", 10); len(hits) != 0 {
		t.Errorf("hidden memory is searchable: %v", hits)
	}
	if _, err := tr.w.Get(tr.project.ID); err == nil {
		t.Errorf("hidden memory is readable by id")
	}
	testutil.Git(t, tr.repo, "checkout", "-q", "main")
	res = check(t, tr.w)
	got = ids(t, tr.w)
	if got[tr.project.ID] != "fresh" || got[tr.personal.ID] != "fresh" {
		t.Fatalf("after checkout back: %v (sync %+v)", got, res.Files)
	}
	if len(res.Files.Loaded) != 1 || !res.AnchorsChanged() {
		t.Errorf("sync = %+v", res.Files)
	}
	if hits, _ := tr.w.Search(context.Background(), "upstream", 10); len(hits) != 1 {
		t.Errorf("restored memory not searchable: %v", hits)
	}

	// The same through watched-file events: delete, then recreate.
	file := tr.file(tr.project.ID)
	data, _ := os.ReadFile(file)
	os.Remove(file)
	if changed, err := tr.w.MemoryFileChanged(context.Background(), file, true); !changed || err != nil {
		t.Fatalf("delete event: %v %v", changed, err)
	}
	if _, ok := ids(t, tr.w)[tr.project.ID]; ok {
		t.Fatalf("memory still listed after its file was deleted")
	}
	os.WriteFile(file, data, 0o644)
	if changed, err := tr.w.MemoryFileChanged(context.Background(), file, false); !changed || err != nil {
		t.Fatalf("create event: %v %v", changed, err)
	}
	if ids(t, tr.w)[tr.project.ID] != "fresh" {
		t.Fatalf("memory not back after its file returned: %v", ids(t, tr.w))
	}
}

// TestMemoryFileEventsExactIDs: events for a file named with a prefix of an
// id, or with a personal memory's id, touch nothing.
func TestMemoryFileEventsExactIDs(t *testing.T) {
	tr := newTeamRepo(t)
	ctx := context.Background()
	dir := filepath.Join(tr.repo, ".gloss", "memories")
	data, _ := os.ReadFile(tr.file(tr.project.ID))
	for _, name := range []string{tr.project.ID[:10], tr.personal.ID[:10], strings.ToLower(tr.project.ID)} {
		p := filepath.Join(dir, name+".md")
		os.WriteFile(p, data, 0o644)
		if changed, err := tr.w.MemoryFileChanged(ctx, p, false); changed || err != nil {
			t.Errorf("create %s: %v %v", name, changed, err)
		}
		os.Remove(p)
		if changed, err := tr.w.MemoryFileChanged(ctx, p, true); changed || err != nil {
			t.Errorf("delete %s: %v %v", name, changed, err)
		}
	}
	// A file named with the personal memory's id: reported, ignored.
	p := tr.file(tr.personal.ID)
	os.WriteFile(p, []byte(strings.ReplaceAll(string(data), tr.project.ID, tr.personal.ID)), 0o644)
	if changed, err := tr.w.MemoryFileChanged(ctx, p, false); changed || err == nil || !strings.Contains(err.Error(), "personal") {
		t.Errorf("personal id file: %v %v", changed, err)
	}
	os.Remove(p)
	if changed, err := tr.w.MemoryFileChanged(ctx, p, true); changed || err != nil {
		t.Errorf("personal id file deleted: %v %v", changed, err)
	}
	got := ids(t, tr.w)
	if len(got) != 2 || got[tr.project.ID] == "" || got[tr.personal.ID] == "" {
		t.Fatalf("memories after the events: %v", got)
	}
	if m, _ := tr.w.Get(tr.personal.ID); m.Scope != memory.ScopePersonal || m.Body != "mine only" {
		t.Errorf("personal memory changed: %+v", m)
	}
	res := check(t, tr.w)
	if res.Files.Changed() || len(ids(t, tr.w)) != 2 {
		t.Errorf("check after the events: %+v", res.Files)
	}
}

// TestTwoWorktrees: two git worktrees of one repository (one origin) have
// their own stores; each loads the project memories committed in its
// branch.
func TestTwoWorktrees(t *testing.T) {
	tr := newTeamRepo(t)
	testutil.Git(t, tr.repo, "remote", "add", "origin", "git@example.com:team/repo.git")
	wt := filepath.Join(t.TempDir(), "wt2")
	testutil.Git(t, tr.repo, "worktree", "add", "-q", wt, "-b", "feature")
	w2 := openWS(t, wt) // both open at once: distinct stores
	if w2.ID == tr.w.ID || w2.Dir == tr.w.Dir {
		t.Fatalf("worktrees share project id %s", w2.ID)
	}
	res := check(t, w2)
	got := ids(t, w2)
	if len(got) != 1 || got[tr.project.ID] != "fresh" {
		t.Fatalf("second worktree: %v (sync %+v)", got, res.Files)
	}
	// Clones of one origin too.
	clone := filepath.Join(t.TempDir(), "clone")
	testutil.Git(t, tr.repo, "clone", "-q", tr.repo, clone)
	testutil.Git(t, clone, "remote", "set-url", "origin", "git@example.com:team/repo.git")
	if memory.ProjectID(clone) == tr.w.ID || memory.ProjectID(clone) == w2.ID {
		t.Errorf("clone shares a project id")
	}
}

// TestSymlinkedGlossRefused: a .gloss that is a symbolic link out of the
// workspace is neither written nor read through, and nothing is hidden.
func TestSymlinkedGlossRefused(t *testing.T) {
	tr := newTeamRepo(t)
	outside := t.TempDir()
	os.RemoveAll(filepath.Join(tr.repo, ".gloss"))
	if err := os.Symlink(outside, filepath.Join(tr.repo, ".gloss")); err != nil {
		t.Fatal(err)
	}
	w := tr.w
	res := check(t, w)
	if len(res.Files.Problems) != 1 || !strings.Contains(res.Files.Problems[0].Message, "symbolic link") || res.Files.Changed() {
		t.Errorf("sync through a symlink: %+v", res.Files)
	}
	if ids(t, w)[tr.project.ID] != "fresh" {
		t.Errorf("project memory hidden: %v", ids(t, w))
	}
	l := testutil.LineOf(t, teamGo, "return err")
	if _, err := w.Remember(context.Background(), memory.RememberRequest{Text: "x", Path: filepath.Join(tr.repo, "team.go"), StartLine: l, Scope: memory.ScopeProject}); err != nil {
		t.Fatal(err)
	}
	if len(tr.warned) != 1 || !strings.Contains(tr.warned[0].Error(), "symbolic link") {
		t.Errorf("warnings = %v", tr.warned)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote through the symlink: %v", ents)
	}
	// Once .gloss is a directory again, the next check writes the file of
	// the memory whose file could not be written (and hides nothing).
	os.Remove(filepath.Join(tr.repo, ".gloss"))
	testutil.Git(t, tr.repo, "checkout", "--", ".gloss")
	res = check(t, w)
	if len(res.Files.Written) != 1 || len(res.Files.Hidden) != 0 || len(ids(t, w)) != 3 {
		t.Errorf("check after removing the link: %+v %v", res.Files, ids(t, w))
	}
}

// TestLegacyMemoryFile: a file of the older format (path, symbol, lines
// only) keeps the store's anchors and is rewritten in the new format; in a
// store without the memory (a clone) it is anchored to the code as it is.
func TestLegacyMemoryFile(t *testing.T) {
	tr := newTeamRepo(t)
	legacy := "---\nid: " + tr.project.ID + "\ntype: gotcha\ntitle: Retry cap\nanchors:\n  - path: team.go\n    symbol: " +
		tr.project.Anchors[0].Symbol + "\n    lines: 4-12\nauthor: Ada\ncreated_at: 2026-01-01T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\n---\n\nCapped at 3.\n"
	os.WriteFile(tr.file(tr.project.ID), []byte(legacy), 0o644)
	res := check(t, tr.w)
	m, err := tr.w.Get(tr.project.ID)
	if err != nil || len(res.Files.Written) != 1 || m.Body != "Capped at 3." || m.Type != "gotcha" || m.Anchors[0].BodyHash != tr.project.Anchors[0].BodyHash {
		t.Fatalf("legacy file: %v %+v %+v", err, res.Files, m)
	}
	data, _ := os.ReadFile(tr.file(tr.project.ID))
	if !strings.Contains(string(data), "body_hash: "+tr.project.Anchors[0].BodyHash) {
		t.Errorf("legacy file not rewritten:\n%s", data)
	}

	// A store that never had the memory.
	os.WriteFile(tr.file(tr.project.ID), []byte(legacy), 0o644)
	testutil.Commit(t, tr.repo, "legacy")
	clone := filepath.Join(t.TempDir(), "clone")
	testutil.Git(t, tr.repo, "clone", "-q", tr.repo, clone)
	w2 := openWS(t, clone)
	check(t, w2)
	if got := ids(t, w2); len(got) != 1 || got[tr.project.ID] != "fresh" {
		t.Fatalf("clone with a legacy file: %v", got)
	}
	if m, _ := w2.Get(tr.project.ID); m.Anchors[0].Kind != "symbol" || m.Anchors[0].BodyHash != tr.project.Anchors[0].BodyHash {
		t.Errorf("legacy anchor in the clone: %+v", m.Anchors[0])
	}
}

// TestBadMemoryFiles: broken front matter, conflict markers, an id that
// is not the file's name and a path outside the workspace are reported
// with their files; nothing is loaded half or deleted; good files load.
func TestBadMemoryFiles(t *testing.T) {
	tr := newTeamRepo(t)
	data, _ := os.ReadFile(tr.file(tr.project.ID))
	good := string(data)
	fresh := map[byte]string{}
	newID := func(c byte) string {
		if fresh[c] == "" {
			fresh[c] = ulid.Make().String()
		}
		return fresh[c]
	}
	dir := filepath.Join(tr.repo, ".gloss", "memories")
	write := func(id, s string) { os.WriteFile(filepath.Join(dir, id+".md"), []byte(s), 0o644) }
	// The project memory's own file gets a merge conflict.
	conflicted := strings.Replace(good, "\n\nCapped at 3", "\n\n<<<<<<< HEAD\nCapped at 3\n=======\nCapped at 5\n>>>>>>> other", 1)
	write(tr.project.ID, conflicted)
	write(newID('A'), "---\nid: "+newID('A')+"\ntype: [\n---\nbody\n")                       // broken YAML
	write(newID('B'), strings.ReplaceAll(good, "id: "+tr.project.ID, "id: "+tr.personal.ID)) // id of another
	write(newID('C'), strings.ReplaceAll(strings.ReplaceAll(good, tr.project.ID, newID('C')), "path: team.go", "path: ../../etc/passwd"))
	write(newID('D'), strings.ReplaceAll(strings.ReplaceAll(good, tr.project.ID, newID('D')), "Capped at 3", "Another team note"))
	res := check(t, tr.w)
	probs := map[string]memory.FileProblem{}
	for _, p := range res.Files.Problems {
		probs[strings.TrimSuffix(filepath.Base(p.Path), ".md")] = p
	}
	if p := probs[tr.project.ID]; !strings.Contains(p.Message, "merge conflict") || p.Line == 0 {
		t.Errorf("conflict: %+v", p)
	}
	if p := probs[newID('A')]; p.Message == "" || p.Line == 0 {
		t.Errorf("broken YAML: %+v", p)
	}
	if p := probs[newID('B')]; !strings.Contains(p.Message, "not the file's name") {
		t.Errorf("id of another file: %+v", p)
	}
	if p := probs[newID('C')]; !strings.Contains(p.Message, "inside the workspace") {
		t.Errorf("path traversal: %+v", p)
	}
	if len(probs) != 4 {
		t.Errorf("problems = %+v", res.Files.Problems)
	}
	got := ids(t, tr.w)
	if len(got) != 3 || got[newID('D')] != "fresh" || got[tr.project.ID] != "fresh" {
		t.Fatalf("memories = %v", got)
	}
	if m, _ := tr.w.Get(tr.project.ID); m.Body != tr.project.Body {
		t.Errorf("conflicted file loaded: %q", m.Body)
	}
	for _, c := range "ABC" {
		if _, err := os.Stat(filepath.Join(dir, newID(byte(c))+".md")); err != nil {
			t.Errorf("bad file removed: %v", err)
		}
	}
	// Resolving the conflict loads the file.
	write(tr.project.ID, strings.ReplaceAll(good, "Capped at 3", "Capped at 5"))
	res = check(t, tr.w)
	if m, _ := tr.w.Get(tr.project.ID); !strings.HasPrefix(m.Body, "Capped at 5") || m.Anchors[0].Status != "fresh" {
		t.Errorf("after resolving: %+v %+v", m, res.Files)
	}
}

// TestStoreMigration: a store kept under the old, origin-derived project
// id moves to the checkout's id on open, memories included.
func TestStoreMigration(t *testing.T) {
	home := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	testutil.Git(t, repo, "remote", "add", "origin", "https://example.com/team/repo.git")
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	m, err := w.Remember(context.Background(), memory.RememberRequest{Text: "personal", Path: filepath.Join(repo, "a.go"), StartLine: 3})
	if err != nil {
		t.Fatal(err)
	}
	newDir := w.Dir
	w.Close()
	sum := sha256.Sum256([]byte("example.com/team/repo"))
	oldDir := filepath.Join(home, "projects", hex.EncodeToString(sum[:])[:16])
	if err := os.Rename(newDir, oldDir); err != nil {
		t.Fatal(err)
	}
	w = openWS(t, repo)
	if w.Dir != newDir {
		t.Fatalf("dir = %s, want %s", w.Dir, newDir)
	}
	if _, err := w.Get(m.ID); err != nil {
		t.Fatalf("memory lost in the migration: %v", err)
	}
	if _, err := os.Stat(oldDir); !os.IsNotExist(err) {
		t.Errorf("old store left behind: %v", err)
	}
}

// TestMemoryAboutConflictMarkers: a body quoting one conflict marker is
// not a merge conflict; a whole conflict block is.
func TestMemoryAboutConflictMarkers(t *testing.T) {
	m := &memory.Memory{ID: "01ABCDEFGHJKMNPQRSTVWXYZ00", Type: "note", Title: "t", Scope: memory.ScopeProject,
		Body: "Git writes\n<<<<<<< HEAD\nat the start of a conflict."}
	if _, body, err := memfile.Parse(memory.FormatMemoryFile(m)); err != nil || body != m.Body {
		t.Fatalf("%q %v", body, err)
	}
	m.Body = "<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x"
	if _, _, err := memfile.Parse(memory.FormatMemoryFile(m)); err == nil || !strings.Contains(err.Error(), "unresolved merge conflict") {
		t.Fatalf("conflict block: %v", err)
	}
}

// TestCloneLoadsMemoryFilesBeforeIndexing: in a fresh clone (a store
// never indexed) the first Check loads the committed memory files before
// the index run parses anything, so their memories answer hovers while
// the repository is being indexed (issue #12, background indexing).
func TestCloneLoadsMemoryFilesBeforeIndexing(t *testing.T) {
	tr := newTeamRepo(t)
	clone := filepath.Join(t.TempDir(), "clone")
	testutil.Git(t, tr.repo, "clone", "-q", tr.repo, clone)
	w := openWS(t, clone)
	var once sync.Once
	atFirstParse := -1
	restore := index.SetParseHook(func(string) {
		once.Do(func() { atFirstParse, _ = w.Store.MemoryCount() })
	})
	defer restore()
	res := check(t, w)
	if atFirstParse != 1 {
		t.Fatalf("memories stored when the first file was parsed: %d, want the committed one (sync %+v)", atFirstParse, res.Files)
	}
	if got := ids(t, w); len(got) != 1 || got[tr.project.ID] != "fresh" {
		t.Fatalf("after the first check: %v", got)
	}
	if len(res.Files.Loaded) != 1 || !res.AnchorsChanged() {
		t.Fatalf("the first check reports %+v, want the memory loaded", res.Files)
	}
}

// TestCloneFirstIndexNoFalseDeleted: in a fresh clone the committed
// memory on Retry is not deleted while the first index run has not
// parsed team.go, and a run interrupted there (a daemon stopped mid-index)
// leaves no deleted status behind; the next check resolves it fresh.
func TestCloneFirstIndexNoFalseDeleted(t *testing.T) {
	tr := newTeamRepo(t)
	clone := filepath.Join(t.TempDir(), "clone")
	testutil.Git(t, tr.repo, "clone", "-q", tr.repo, clone)
	w := openWS(t, clone)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	var during map[string]string
	restore := index.SetParseHook(func(string) {
		once.Do(func() {
			during = ids(t, w)
			cancel() // the daemon stops before the run parses anything
		})
	})
	_, err := w.CheckWith(ctx, index.RunOptions{})
	restore()
	if err == nil {
		t.Fatal("the interrupted check succeeded")
	}
	if len(during) != 1 || during[tr.project.ID] == memory.StatusDeleted {
		t.Fatalf("while the first index runs: %v, want the memory, not deleted", during)
	}
	if got := ids(t, w); got[tr.project.ID] == memory.StatusDeleted {
		t.Fatalf("after the interrupted first index: %v, want no deleted status stored", got)
	}
	check(t, w)
	if got := ids(t, w); got[tr.project.ID] != memory.StatusFresh {
		t.Fatalf("after the next check: %v, want fresh", got)
	}
}
