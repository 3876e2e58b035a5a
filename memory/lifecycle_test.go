package memory_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/confidence"
	"github.com/gloss-dev/gloss/memory/memfile"
)

// openV1Store copies testdata/store-v1 (a Pebble store and its workspace
// written by gloss before the lifecycle fields, memory schema 1) into a
// temporary data home and workspace, and opens it with the clock at now.
func openV1Store(t *testing.T, now time.Time) (*memory.Workspace, string) {
	t.Helper()
	testutil.Hermetic(t)
	tmp := t.TempDir()
	root, home := filepath.Join(tmp, "root"), filepath.Join(tmp, "home")
	if out, err := exec.Command("cp", "-r", filepath.Join("testdata", "store-v1", "root"), root).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	root, _ = filepath.EvalSymlinks(root)
	pdir := filepath.Join(home, "projects", memory.ProjectID(root))
	if err := os.MkdirAll(pdir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", filepath.Join("testdata", "store-v1", "pebble"), filepath.Join(pdir, "pebble")).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	w, err := memory.Open(root, memory.Options{Home: home, Embedder: "none", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, root
}

// rawRecords returns the stored JSON of every memory as generic maps.
func rawRecords(t *testing.T, w *memory.Workspace) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	err := w.Store.Memories(func(id string, data []byte) error {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		out[id] = m
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMigrateV1Store opens a store written by gloss before the lifecycle
// fields: every field of every record survives decoding, re-encoding and
// a check that rewrites the records (schema 2); new fields default
// sensibly (stale_since from the stale anchor's resolution, no expiry,
// confidence computed from the verification age).
func TestMigrateV1Store(t *testing.T) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC) // 90 days after the fixture was written
	w, _ := openV1Store(t, now)
	before := rawRecords(t, w)
	if len(before) != 3 {
		t.Fatalf("fixture has %d memories, want 3", len(before))
	}
	mems, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	written := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	for _, m := range mems {
		old := before[m.ID]
		if old["v"] != float64(1) {
			t.Errorf("%s: fixture record v = %v, want 1", m.ID, old["v"])
		}
		data, _ := json.Marshal(m)
		var dec map[string]any
		_ = json.Unmarshal(data, &dec)
		for k, v := range old {
			if k == "confidence" {
				continue // computed on read
			}
			if !reflect.DeepEqual(dec[k], v) {
				t.Errorf("%s: field %s = %v after decoding, was %v", m.ID, k, dec[k], v)
			}
		}
		if !m.ExpiresAt.IsZero() || m.Pinned || m.NeedsReview {
			t.Errorf("%s: new fields not zero: expires %v pinned %v needs_review %v", m.ID, m.ExpiresAt, m.Pinned, m.NeedsReview)
		}
		if m.HalfLifeDays != confidence.HalfLives[m.Type] {
			t.Errorf("%s: half-life %g, want %g (%s)", m.ID, m.HalfLifeDays, confidence.HalfLives[m.Type], m.Type)
		}
		want := confidence.Of(m.Lifecycle(), now).Value
		if m.Confidence != want || m.Confidence >= 1 || m.Confidence <= 0 {
			t.Errorf("%s: confidence %g, want %g in (0, 1)", m.ID, m.Confidence, want)
		}
		switch {
		case m.Stale() && !m.StaleSince.Equal(written):
			t.Errorf("%s: stale since %v, want the stale anchor's resolution %v", m.ID, m.StaleSince, written)
		case !m.Stale() && !m.StaleSince.IsZero():
			t.Errorf("%s: fresh but stale since %v", m.ID, m.StaleSince)
		}
	}
	// A check rewrites the records it re-resolves: the file changed since.
	if err := os.WriteFile(filepath.Join(w.Root, "fix.go"), append(mustRead(t, filepath.Join(w.Root, "fix.go")), "\n// tail\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := rawRecords(t, w)
	for id, old := range before {
		nw := after[id]
		if nw == nil {
			t.Fatalf("%s lost by the check", id)
		}
		for k := range old {
			if _, ok := nw[k]; !ok {
				t.Errorf("%s: field %s lost when rewritten", id, k)
			}
		}
		for _, k := range []string{"type", "title", "body", "author", "created_at", "verified_at", "source", "scope", "tags"} {
			if !reflect.DeepEqual(old[k], nw[k]) {
				t.Errorf("%s: %s = %v after the check, was %v", id, k, nw[k], old[k])
			}
		}
	}
	stale := 0
	for id, nw := range after {
		if nw["v"] != float64(1) && nw["v"] != float64(memory.SchemaVersion) {
			t.Errorf("%s: v = %v", id, nw["v"])
		}
		if _, ok := nw["stale_since"]; ok {
			stale++
		}
	}
	if stale != 1 {
		t.Errorf("%d records with stale_since after the check, want 1 (the Parse decision)", stale)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestMemoryFileLifecycleFields: a project memory's file carries its
// expiry, pin and a non-default half-life, and loading the file back
// (an edit, or a fresh clone's store) keeps them.
func TestMemoryFileLifecycleFields(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"go.mod": "module example.com/x\n\ngo 1.22\n", "a.go": "package x\n\nfunc A() int {\n\treturn 1\n}\n"})
	ctx := context.Background()
	exp := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	m, err := w.Remember(ctx, memory.RememberRequest{Text: "A returns one", Type: "gotcha", Scope: memory.ScopeProject, Path: filepath.Join(repo, "a.go"), StartLine: 3, EndLine: 5, ExpiresAt: exp, Pinned: true})
	if err != nil {
		t.Fatal(err)
	}
	file := w.MemoryFile(m)
	data := mustRead(t, file)
	for _, want := range []string{"expires_at: " + exp.Format(time.RFC3339), "pinned: true"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("memory file lacks %q:\n%s", want, data)
		}
	}
	h, body, err := memfile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !h.ExpiresAt.Equal(exp) || !h.Pinned || h.HalfLife != 0 {
		t.Errorf("parsed header: expires %v pinned %v half-life %g", h.ExpiresAt, h.Pinned, h.HalfLife)
	}
	// A teammate edits the file: a custom half-life and new text.
	edited := strings.Replace(string(data), "pinned: true", "pinned: true\nhalf_life_days: 30", 1)
	i := strings.LastIndex(edited, body) // the body, not the title
	edited = edited[:i] + "A returns one, always" + edited[i+len(body):]
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SyncMemoryFiles(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := w.Get(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.ExpiresAt.Equal(exp) || !got.Pinned || got.HalfLifeDays != 30 || got.Body != "A returns one, always" {
		t.Errorf("after loading the edited file: expires %v pinned %v half-life %g body %q", got.ExpiresAt, got.Pinned, got.HalfLifeDays, got.Body)
	}
	if !strings.Contains(string(memory.FormatMemoryFile(got)), "half_life_days: 30") {
		t.Error("a custom half-life is not written back")
	}
}

// TestAccessTracking: accesses are kept in memory until flushed (a flush
// writes them in one batch), survive a close and reopen, and never touch
// the memory record.
func TestAccessTracking(t *testing.T) {
	gh := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/x\n\ngo 1.22\n", "a.go": "package x\n\nfunc A() int {\n\treturn 1\n}\n"})
	clock := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	open := func() *memory.Workspace {
		w, err := memory.Open(repo, memory.Options{Home: gh, Embedder: "none", Now: func() time.Time { return clock }})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := open()
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := w.Remember(ctx, memory.RememberRequest{Text: "A returns one", Path: filepath.Join(repo, "a.go"), StartLine: 3, EndLine: 5})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := w.Store.Memory(m.ID)
	w.RecordAccess(m.ID, m.ID) // one read of a result listing it twice
	clock = clock.Add(time.Hour)
	w.RecordAccess(m.ID)
	if st, _ := w.Store.Access(m.ID); st.Count != 0 {
		t.Errorf("stored count %d before a flush, want 0 (accesses wait in memory)", st.Count)
	}
	w.WithAccess(m)
	if m.AccessCount != 2 || !m.LastAccessedAt.Equal(clock) {
		t.Errorf("pending access: count %d last %v, want 2 at %v", m.AccessCount, m.LastAccessedAt, clock)
	}
	if err := w.FlushAccess(); err != nil {
		t.Fatal(err)
	}
	w.RecordAccess(m.ID) // flushed by Close
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w = open()
	defer w.Close()
	st, err := w.Store.Access(m.ID)
	if err != nil || st.Count != 3 || !st.Last.Equal(clock) {
		t.Errorf("after reopen: %+v %v, want count 3 at %v", st, err, clock)
	}
	if after, _ := w.Store.Memory(m.ID); string(after) != string(rec) {
		t.Error("an access rewrote the memory record")
	}
	all, err := w.Accesses()
	if err != nil || all[m.ID].Count != 3 {
		t.Errorf("Accesses: %v %v", all, err)
	}
}

// TestParseExpiry covers the forms of remember --expires.
func TestParseExpiry(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"30d":                  now.AddDate(0, 0, 30),
		"2w":                   now.AddDate(0, 0, 14),
		"36h":                  now.Add(36 * time.Hour),
		"2026-12-31":           time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC),
		"2027-01-02T03:04:05Z": time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC),
	} {
		got, err := memory.ParseExpiry(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseExpiry(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "soon", "-3d", "0d", "2020-01-01", "-1h"} {
		if _, err := memory.ParseExpiry(bad, now); err == nil {
			t.Errorf("ParseExpiry(%q): want an error", bad)
		}
	}
}
