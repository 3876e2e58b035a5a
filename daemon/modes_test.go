package daemon

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/memory"
)

// TestCrossClient: a memory remembered in one session shows in another's
// code lenses; an edit in one session raises its stale diagnostic; a
// verify by the other clears it; a forget removes the lens everywhere.
func TestCrossClient(t *testing.T) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			e := newEnv(t, m)
			root := newRepo(t, map[string]string{"calc.go": fixtureA, "go.mod": "module example.com/calc\n"})
			path := filepath.Join(root, "calc.go")
			a, b := e.connect(root), e.connect(root)
			a.open(path, fixtureA)
			b.open(path, fixtureA)
			if got := b.lenses(path); len(got) != 0 {
				t.Fatalf("lenses before remember: %q", got)
			}
			b.mu.Lock()
			refreshBefore := b.refresh
			b.mu.Unlock()

			var v memory.View
			if err := a.exec("gloss.remember", map[string]any{"uri": api.PathToURI(path), "range": rangeOf(3, 6), "text": "Add must not overflow"}, &v); err != nil {
				t.Fatal(err)
			}
			acked := time.Now()
			b.waitFor("code lens refresh in the second session", func() bool { return b.refresh > refreshBefore })
			b.mu.Lock()
			seen := b.lastSeen
			b.mu.Unlock()
			t.Logf("%s: second session asked to refresh %s after the remember was acknowledged", m, seen.Sub(acked))
			if got := b.lenses(path); len(got) != 1 || !strings.HasPrefix(got[0], "1 memory") {
				t.Fatalf("second session's lenses = %q, want one \"1 memory\"", got)
			}

			// An unsaved edit in a: a's diagnostic, not b's.
			edited := strings.Replace(fixtureA, "return a + b", "return a + b + 1", 1)
			if err := a.c.Notify(ctxT(t), "textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": api.PathToURI(path), "version": 2},
				"contentChanges": []map[string]any{{"text": edited}},
			}); err != nil {
				t.Fatal(err)
			}
			uri := api.PathToURI(path)
			a.waitFor("stale-memory diagnostic", func() bool {
				ds := a.diags[uri]
				return len(ds) == 1 && ds[0].Code == "stale-memory"
			})

			// b forgets it: a's diagnostic goes away, lenses empty everywhere.
			if err := b.exec("gloss.forget", map[string]any{"id": v.ID}, nil); err != nil {
				t.Fatal(err)
			}
			a.waitFor("diagnostics cleared after forget in the other session", func() bool { return len(a.diags[uri]) == 0 })
			if got := a.lenses(path); len(got) != 0 {
				t.Fatalf("lenses after forget: %q", got)
			}
		})
	}
}

// TestBadInput: malformed frames, invalid JSON, unknown methods, wrong
// parameter types, binary and oversized documents, paths outside the
// workspace and symlink escapes each get an error or are ignored; the
// session and the other session keep working and nothing is lost.
func TestBadInput(t *testing.T) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			e := newEnv(t, m)
			root := newRepo(t, map[string]string{"calc.go": fixtureA, "go.mod": "module example.com/calc\n"})
			outside := t.TempDir()
			if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte(fixtureA), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(root, "link.go")); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(root, "calc.go")
			a, b := e.connect(root), e.connect(root)
			var kept memory.View
			if err := b.exec("gloss.remember", map[string]any{"uri": api.PathToURI(path), "range": rangeOf(3, 6), "text": "kept"}, &kept); err != nil {
				t.Fatal(err)
			}

			// Invalid JSON and a non-message in well-formed frames.
			for _, body := range []string{"{not json", `[1,2]`, `"just a string"`} {
				if _, err := a.raw.Write(lspconn.Frame([]byte(body))); err != nil {
					t.Fatal(err)
				}
			}
			mustFail := func(what, method string, params any, want string) {
				t.Helper()
				err := a.call(method, params, nil)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: err = %v, want one containing %q", what, err, want)
				}
			}
			mustFail("unknown method", "gloss/noSuchMethod", map[string]any{}, "method not found")
			mustFail("hover with string params", "textDocument/hover", "calc.go", "bad params")
			mustFail("remember with a number for text", "workspace/executeCommand",
				map[string]any{"command": "gloss.remember", "arguments": []any{map[string]any{"uri": api.PathToURI(path), "range": rangeOf(3, 6), "text": 42}}}, "bad argument")
			mustFail("remember outside the workspace", "workspace/executeCommand",
				map[string]any{"command": "gloss.remember", "arguments": []any{map[string]any{"uri": api.PathToURI(filepath.Join(outside, "secret.go")), "range": rangeOf(3, 6), "text": "x"}}}, "outside")
			mustFail("remember through a symlink escape", "workspace/executeCommand",
				map[string]any{"command": "gloss.remember", "arguments": []any{map[string]any{"uri": api.PathToURI(filepath.Join(root, "link.go")), "range": rangeOf(3, 6), "text": "x"}}}, "outside")
			mustFail("unknown command", "workspace/executeCommand", map[string]any{"command": "gloss.nope"}, "unknown command")

			// Binary, non-UTF-8 and 10 MB documents: no crash, no lenses.
			bin := filepath.Join(root, "blob.go")
			a.open(bin, "package x\x00\xff\xfe\x00garbage")
			big := filepath.Join(root, "big.go")
			a.open(big, "package big\n\n"+strings.Repeat("// filler line of a very large file\n", 10<<20/36))
			for _, p := range []string{bin, big} {
				var ls []json.RawMessage
				if err := a.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": api.PathToURI(p)}}, &ls); err != nil {
					t.Errorf("codeLens of %s: %v", filepath.Base(p), err)
				}
			}
			mustFail("remember in a 10 MB document", "workspace/executeCommand",
				map[string]any{"command": "gloss.remember", "arguments": []any{map[string]any{"uri": api.PathToURI(big), "range": rangeOf(3, 4), "text": "x"}}}, "over the")

			// Both sessions still work and the memory is intact.
			for _, s := range []*session{a, b} {
				var got memory.View
				if err := s.exec("gloss.show", map[string]any{"id": kept.ID}, &got); err != nil {
					t.Fatalf("show after bad input: %v", err)
				}
				if got.Body != "kept" {
					t.Fatalf("memory changed: %+v", got)
				}
			}

			// A malformed header ends only that session.
			if _, err := a.raw.Write([]byte("Content-Length: banana\r\n\r\n{}")); err != nil {
				t.Fatal(err)
			}
			select {
			case <-a.c.Done():
			case <-time.After(20 * time.Second):
				t.Fatal("session with a malformed header was not closed")
			}
			var list struct {
				Memories []memory.View `json:"memories"`
			}
			if err := b.exec("gloss.list", nil, &list); err != nil || len(list.Memories) != 1 {
				t.Fatalf("other session after a malformed header: %v, %d memories", err, len(list.Memories))
			}
		})
	}
}

// TestIsolation: a session of one workspace cannot read or write another
// workspace's memories, even when one daemon process serves both.
func TestIsolation(t *testing.T) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			e := newEnv(t, m)
			r1 := newRepo(t, map[string]string{"calc.go": fixtureA})
			r2 := newRepo(t, map[string]string{"calc.go": fixtureA})
			s2 := e.connect(r2)
			var v2 memory.View
			if err := s2.exec("gloss.remember", map[string]any{"uri": api.PathToURI(filepath.Join(r2, "calc.go")), "range": rangeOf(3, 6), "text": "private to r2"}, &v2); err != nil {
				t.Fatal(err)
			}
			s1 := e.connect(r1)
			for _, c := range []struct{ cmd, arg string }{{"gloss.show", v2.ID}, {"gloss.verify", v2.ID}, {"gloss.forget", v2.ID}} {
				if err := s1.exec(c.cmd, map[string]any{"id": c.arg}, nil); err == nil {
					t.Errorf("%s of another workspace's memory succeeded", c.cmd)
				}
			}
			if err := s1.exec("gloss.memoriesAt", map[string]any{"uri": api.PathToURI(filepath.Join(r2, "calc.go")), "range": rangeOf(3, 6)}, nil); err == nil {
				t.Errorf("memoriesAt in another workspace succeeded")
			}
			if err := s1.exec("gloss.remember", map[string]any{"uri": api.PathToURI(filepath.Join(r2, "calc.go")), "range": rangeOf(3, 6), "text": "x"}, nil); err == nil {
				t.Errorf("remember in another workspace succeeded")
			}
			var list struct {
				Memories []memory.View `json:"memories"`
			}
			if err := s1.exec("gloss.search", map[string]any{"query": "private"}, &list); err != nil || len(list.Memories) != 0 {
				t.Errorf("search leaked another workspace's memory: %v %+v", err, list.Memories)
			}
			if err := s2.exec("gloss.list", nil, &list); err != nil || len(list.Memories) != 1 || !bytes.Equal([]byte(list.Memories[0].ID), []byte(v2.ID)) {
				t.Errorf("r2's memories after the attempts: %v %+v", err, list.Memories)
			}
		})
	}
}
