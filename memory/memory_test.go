package memory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/ident"
	"github.com/gloss-dev/gloss/internal/secret"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/memfile"
)

func TestSplitIdentifier(t *testing.T) {
	for in, want := range map[string]string{
		"createFileUploads":  "create file uploads",
		"HTTPServer":         "http server",
		"snake_case_name":    "snake case name",
		"pkg/storage.go":     "pkg storage go",
		"parseV2Header":      "parse v 2 header",
		"`<constructor>`":    "constructor",
		"already lower case": "already lower case",
	} {
		if got := ident.Split(in); got != want {
			t.Errorf("ident.Split(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeRemote(t *testing.T) {
	for _, u := range []string{
		"git@github.com:Acme/Shop.git",
		"https://github.com/Acme/Shop",
		"https://user@GitHub.com/Acme/Shop.git/",
		"ssh://git@github.com/Acme/Shop.git",
	} {
		if got := memory.NormalizeRemote(u); got != "github.com/Acme/Shop" {
			t.Errorf("NormalizeRemote(%q) = %q", u, got)
		}
	}
}

func TestCheckSecrets(t *testing.T) {
	bad := []string{
		"-----BEGIN RSA PRIVATE KEY-----\nabc",
		"key AKIAIOSFODNN7EXAMPLE here",
		"token ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789AB",
		"password: correct-horse-battery",
		"use sk-" + "abcdefghijklmnopqrstuvwxyz0123456789abcd",
	}
	for _, s := range bad {
		if secret.Check(s) == nil {
			t.Errorf("secret.Check(%q) = nil, want refusal", s)
		}
	}
	good := []string{"Retries are capped at 3 because upstream rate-limits bursts", "the password field is hashed with argon2", "see AKIA docs"}
	for _, s := range good {
		if err := secret.Check(s); err != nil {
			t.Errorf("secret.Check(%q) = %v, want nil", s, err)
		}
	}
}

// TestProjectIsolation: two workspaces get different project ids and
// stores, and neither sees the other's memories.
func TestProjectIsolation(t *testing.T) {
	testutil.Hermetic(t)
	ctx := context.Background()
	var ws []*memory.Workspace
	for i := 0; i < 2; i++ {
		repo := testutil.InitRepo(t)
		testutil.WriteFiles(t, repo, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
		w, err := memory.Open(repo, memory.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := w.Index(ctx); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	if ws[0].ID == ws[1].ID || ws[0].Dir == ws[1].Dir {
		t.Fatalf("same project id %s for two workspaces", ws[0].ID)
	}
	m, err := ws[0].Remember(ctx, memory.RememberRequest{Text: "only in the first", Path: filepath.Join(ws[0].Root, "a.go"), StartLine: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws[1].Get(m.ID); err == nil {
		t.Errorf("second workspace reads the first one's memory")
	}
	if _, err := ws[1].Remember(ctx, memory.RememberRequest{Text: "x", Path: filepath.Join(ws[0].Root, "a.go"), StartLine: 3}); err == nil {
		t.Errorf("second workspace anchored a file of the first")
	}
}

// FuzzParseMemoryFile: a memory file's parser never panics, and what
// FormatMemoryFile writes parses back to the same header and body.
func FuzzParseMemoryFile(f *testing.F) {
	f.Add("---\nid: 01ABC\ntype: gotcha\ntitle: Retry cap\ntags: [net]\n---\nBody text\n")
	f.Add("---\n: :\n---\n")
	f.Add("no front matter")
	f.Fuzz(func(t *testing.T, data string) {
		h, body, err := memfile.Parse([]byte(data))
		if err != nil {
			return
		}
		m := &memory.Memory{ID: "01ABCDEFGHJKMNPQRSTVWXYZ00", Type: "note", Title: h.Title, Tags: h.Tags, Body: body, Scope: memory.ScopeProject}
		h2, body2, err := memfile.Parse(memory.FormatMemoryFile(m))
		if err != nil {
			t.Fatalf("formatted file does not parse: %v", err)
		}
		if h2.Title != strings.TrimSpace(h.Title) && h2.Title != h.Title || strings.TrimSpace(body2) != strings.TrimSpace(body) {
			t.Fatalf("round trip changed title %q→%q or body %q→%q", h.Title, h2.Title, body, body2)
		}
	})
}
