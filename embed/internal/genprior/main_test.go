package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// fakeGoroot writes a small Go distribution: VERSION and a few packages
// with doc comments, inner comments and a testdata file that must be
// skipped.
func fakeGoroot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"VERSION":                  "go0.0.1\ntime 2026-01-01T00:00:00Z\n",
		"src/testdata/junk.go":     "package junk\n// zebra zebra zebra zebra zebra zebra\nfunc Z() {}\n",
		"src/broken/broken.go":     "package broken\nfunc (",
		"src/retry/retry.go":       "",
		"src/net/dial/dial.go":     "",
		"src/storage/database.go":  "",
		"src/template/template.go": "",
	}
	topics := map[string]string{
		"retry":    "Retry waits with backoff between attempts and gives up after the maximum number of tries.",
		"dial":     "Dial opens a network connection to the address and fails after the timeout or deadline.",
		"database": "Query runs a statement on the database connection pool and returns the rows.",
		"template": "Render executes the HTML template with the data and writes the page.",
	}
	for path := range files {
		if files[path] != "" {
			continue
		}
		name := filepath.Base(filepath.Dir(path))
		topic := topics[name]
		if topic == "" {
			topic = topics[filepath.Base(path[:len(path)-3])]
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "// Package %s: %s\npackage %s\n\n", name, topic, name)
		for i := 0; i < 6; i++ {
			fmt.Fprintf(&b, "// Fn%d: %s\n//\n//\tcode example\nfunc Fn%d() {\n\t// %s\n\tFn0()\n}\n\n", i, topic, i, topic)
		}
		files[path] = b.String()
	}
	for path, text := range files {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestGenerateDeterministic(t *testing.T) {
	root := fakeGoroot(t)
	out1, out2 := filepath.Join(t.TempDir(), "a.bin"), filepath.Join(t.TempDir(), "b.bin")
	if err := run(root, out1, 8, 1000, 2, 5); err != nil {
		t.Fatal(err)
	}
	if err := run(root, out2, 8, 1000, 2, 5); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(out1)
	b, _ := os.ReadFile(out2)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("two generations from one GOROOT differ (%d and %d bytes)", len(a), len(b))
	}
	if !bytes.Contains(a, []byte("go-src go0.0.1")) {
		t.Error("the prior does not record the Go release it was trained on")
	}
	if bytes.Contains(a, []byte("zebra")) {
		t.Error("testdata was not skipped")
	}
	if !bytes.Contains(a, []byte("backoff")) || bytes.Contains(a, []byte("exampl")) {
		t.Error("want comment words (backoff) in the vocabulary and indented code lines (example) left out")
	}
}

func TestGenerateNoVersion(t *testing.T) {
	if err := run(t.TempDir(), filepath.Join(t.TempDir(), "x.bin"), 8, 100, 1, 5); err == nil {
		t.Fatal("a directory without VERSION: no error")
	}
}
