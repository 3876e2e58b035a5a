package memory_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/fields"
)

const fakeToken = "ghp_aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3"

// Every write path scans every field for secrets and applies the limits.
func TestWritePathsValidateAllFields(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"go.mod": "module example.com/d\n", "main.go": doctorGo})
	ctx := context.Background()
	at := func(req memory.RememberRequest) memory.RememberRequest {
		req.Path, req.StartLine, req.EndLine = filepath.Join(repo, "main.go"), 4, 6
		return req
	}
	bad := map[string]memory.RememberRequest{
		"secret in title":      at(memory.RememberRequest{Text: "fine", Title: "key " + fakeToken}),
		"secret in tag":        at(memory.RememberRequest{Text: "fine", Tags: []string{"x", fakeToken}}),
		"secret in body":       at(memory.RememberRequest{Text: "conn postgres://app:S3cr3t@db/prod"}),
		"body over 64 KiB":     at(memory.RememberRequest{Text: strings.Repeat("a", fields.MaxBody+1)}),
		"invalid UTF-8 body":   at(memory.RememberRequest{Text: "caf\xe9 au lait"}),
		"invalid UTF-8 title":  at(memory.RememberRequest{Text: "fine", Title: "caf\xe9"}),
		"too many tags":        at(memory.RememberRequest{Text: "fine", Tags: strings.Fields(strings.Repeat("t ", fields.MaxTags+1))}),
		"tag too long":         at(memory.RememberRequest{Text: "fine", Tags: []string{strings.Repeat("t", fields.MaxTagLen+1)}}),
		"control char in tag":  at(memory.RememberRequest{Text: "fine", Tags: []string{"a\x1bb"}}),
		"fullwidth obfuscated": at(memory.RememberRequest{Text: "ＤＢ＿ＰＡＳＳＷＯＲＤ=Qw3rtyUi0pZx"}),
	}
	var names []string
	var reqs []memory.RememberRequest
	for name, req := range bad {
		if _, err := w.Remember(ctx, req); err == nil {
			t.Errorf("remember with %s: want an error", name)
		}
		names = append(names, name)
		reqs = append(reqs, req)
	}
	// The batch path: every bad request fails alone, the good one is kept.
	reqs = append(reqs, at(memory.RememberRequest{Text: "Retries are capped at three", Tags: []string{"net"}}))
	ms, errs := w.RememberBatch(ctx, reqs)
	for i, name := range names {
		if errs[i] == nil {
			t.Errorf("batch with %s: want an error", name)
		}
	}
	if errs[len(reqs)-1] != nil || ms[len(reqs)-1] == nil {
		t.Fatalf("batch: the valid request failed: %v", errs[len(reqs)-1])
	}
	good := ms[len(reqs)-1]
	if _, err := w.Remember(ctx, at(memory.RememberRequest{Text: strings.Repeat("a", fields.MaxBody)})); err != nil {
		t.Errorf("a body of exactly MaxBody bytes: %v", err)
	}

	// The update path, field by field.
	title, body, tags := "key "+fakeToken, "token: "+fakeToken, []string{fakeToken}
	for name, req := range map[string]memory.UpdateRequest{
		"title": {Title: &title}, "text": {Text: &body}, "tags": {Tags: &tags},
	} {
		if _, err := w.Update(ctx, good.ID, req); err == nil {
			t.Errorf("update of %s with a secret: want an error", name)
		}
	}

	// Memory files edited in the work tree go through the same checks.
	proj, err := w.Remember(ctx, at(memory.RememberRequest{Text: "Shared note", Scope: memory.ScopeProject}))
	if err != nil {
		t.Fatal(err)
	}
	path := w.MemoryFile(proj)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "Shared note", "Shared note\n\nDB_PASSWORD=Qw3rtyUi0pZx", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.MemoryFileChanged(ctx, path, false); err == nil {
		t.Error("memory file with a secret: want an error")
	}
	if m, _ := w.Get(proj.ID); m == nil || strings.Contains(m.Body, "Qw3rty") {
		t.Errorf("the secret from the memory file reached the store: %+v", m)
	}
}

// Issue 17: `gloss search x -n 4611686018427387904` panicked (limit*2
// overflowed). The limit is clamped.
func TestSearchHugeLimit(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"go.mod": "module example.com/d\n", "main.go": doctorGo})
	ctx := context.Background()
	if _, err := w.Remember(ctx, memory.RememberRequest{Text: "Retries are capped at three", Path: filepath.Join(repo, "main.go"), StartLine: 4, EndLine: 6}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{4611686018427387904, int(^uint(0) >> 1), -5} {
		hits, err := w.Search(ctx, "retries", n)
		if err != nil || len(hits) != 1 {
			t.Errorf("Search limit %d: %d hits, %v", n, len(hits), err)
		}
	}
}

// A folder that is neither a git work tree nor has a project marker is
// not indexed unless Options.Force is set.
func TestIndexRefusesNonProject(t *testing.T) {
	home := t.TempDir()
	t.Setenv("GLOSS_HOME", home)
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(t.TempDir()))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.go"), []byte("package notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := memory.Open(dir, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Index(context.Background())
	w.Close()
	if !errors.Is(err, memory.ErrNotProject) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("Index of a non-project folder: %v; want ErrNotProject naming --force", err)
	}
	w, err = memory.Open(dir, memory.Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if st, err := w.Index(context.Background()); err != nil || st.Files != 1 {
		t.Fatalf("Index with Force: %+v, %v", st, err)
	}
	// A project marker is enough.
	dir2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir2, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w2, err := memory.Open(dir2, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if _, err := w2.Index(context.Background()); err != nil {
		t.Fatalf("Index of a go.mod folder: %v", err)
	}
}
