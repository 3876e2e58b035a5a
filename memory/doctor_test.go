package memory_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

const doctorGo = `package main

// Retry retries f up to three times.
func Retry(f func() error) error {
	return f()
}
`

// storeWithMemory returns a closed workspace holding one memory, and its
// root and Pebble directory.
func storeWithMemory(t *testing.T, flush bool) (root, pebbleDir string) {
	t.Helper()
	w, repo := indexedWorkspace(t, map[string]string{"go.mod": "module example.com/d\n", "main.go": doctorGo})
	text := "Retries are capped at three"
	if flush {
		// A body larger than a table block, so that the memory has a data
		// block of its own in the table, apart from the schema version.
		text += " " + randomWords(12000) + " " + corruptMe + " " + randomWords(12000)
	}
	if _, err := w.Remember(context.Background(), memory.RememberRequest{Text: text, Path: filepath.Join(repo, "main.go"), StartLine: 4, EndLine: 6}); err != nil {
		t.Fatal(err)
	}
	if flush {
		if err := w.Store.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	pebbleDir = filepath.Join(w.Dir, "pebble")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return repo, pebbleDir
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// A lost manifest marker used to make Open create an empty store over the
// old one ("0 memories"). Now Open refuses, leaves the files alone, and
// Doctor recreates the marker.
func TestMissingManifestMarker(t *testing.T) {
	repo, pdir := storeWithMemory(t, true)
	markers, _ := filepath.Glob(filepath.Join(pdir, "marker.manifest.*"))
	if len(markers) != 1 {
		t.Fatalf("manifest markers: %v", markers)
	}
	if err := os.Remove(markers[0]); err != nil {
		t.Fatal(err)
	}
	before := dirNames(t, pdir)
	_, err := memory.Open(repo, memory.Options{})
	if err == nil {
		t.Fatal("Open over a store without manifest marker succeeded; it must refuse")
	}
	if !strings.Contains(err.Error(), pdir) || !strings.Contains(err.Error(), "gloss doctor") {
		t.Errorf("error %q should name %s and say to run gloss doctor", err, pdir)
	}
	if after := dirNames(t, pdir); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("failed Open changed the store:\nbefore %v\nafter  %v", before, after)
	}

	rep, err := memory.Doctor(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || len(rep.Store.Repairs) == 0 || rep.Store.Backup == "" || rep.Memories != 1 || !rep.SearchRebuilt {
		t.Fatalf("doctor report: %+v store %+v", rep, rep.Store)
	}
	if _, err := os.Stat(rep.Store.Backup); err != nil {
		t.Errorf("backup: %v", err)
	}
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ms, err := w.List()
	if err != nil || len(ms) != 1 {
		t.Fatalf("after doctor: %d memories, %v", len(ms), err)
	}
	hits, err := w.Search(context.Background(), "capped", 5)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search after doctor: %v, %v", hits, err)
	}
}

// Doctor on a healthy store backs it up with a checkpoint and changes
// nothing.
func TestDoctorHealthy(t *testing.T) {
	repo, _ := storeWithMemory(t, false)
	rep, err := memory.Doctor(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || len(rep.Store.Repairs) != 0 || rep.Memories != 1 {
		t.Fatalf("doctor report: %+v store %+v", rep, rep.Store)
	}
	if _, err := os.Stat(filepath.Join(rep.Store.Backup, "OPTIONS-000007")); err != nil {
		if ms, _ := filepath.Glob(filepath.Join(rep.Store.Backup, "MANIFEST-*")); len(ms) == 0 {
			t.Errorf("checkpoint %s has no MANIFEST", rep.Store.Backup)
		}
	}
}

// corruptMe marks the place in a memory's body that flipSSTByte damages.
const corruptMe = "qzxjvkqzxjvkcorruptmeqzxjvk"

// randomWords returns about n bytes of lower-case letter groups that do not
// compress, so corruptMe stays a literal in the table file.
func randomWords(n int) string {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	var b strings.Builder
	for b.Len() < n {
		for i := 0; i < 7; i++ {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// flipSSTByte flips one byte of the memory body in the store's table or
// blob file (see storeWithMemory: values of 512 bytes or more are kept in
// blob files once flushed), leaving the other blocks readable.
func flipSSTByte(t *testing.T, dir string) {
	t.Helper()
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	blobs, _ := filepath.Glob(filepath.Join(dir, "*.blob"))
	ssts = append(ssts, blobs...)
	for _, p := range ssts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(data), corruptMe)
		if i < 0 {
			continue
		}
		data[i+3] ^= 0x01
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no table holds the memory body: %v", ssts)
}

// A flipped byte in a table made List panic and Search deadlock in Close
// while the panic unwound. Both must return errors, and Close must return.
func TestCorruptTableIsAnError(t *testing.T) {
	repo, pdir := storeWithMemory(t, true)
	flipSSTByte(t, pdir)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := memory.Open(repo, memory.Options{})
		if err != nil {
			t.Errorf("open: %v", err)
			return
		}
		if _, err := w.List(); err == nil {
			t.Error("List of a corrupt store: want an error")
		} else if !strings.Contains(err.Error(), pdir) {
			t.Errorf("List error %q does not name the store", err)
		}
		if _, err := w.Search(context.Background(), "capped", 5); err == nil {
			t.Error("Search of a corrupt store: want an error")
		}
		_ = w.Close()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("List/Search/Close of a corrupt store hung")
	}
}
