package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestImportEdges indexes a small workspace in Go, Python and TypeScript
// and checks the stored import edges in both directions.
func TestImportEdges(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":              "module example.com/app\n\ngo 1.22\n",
		"main.go":             "package main\n\nimport (\n\t\"fmt\"\n\t\"example.com/app/store\"\n)\n\nfunc main() { fmt.Println(store.Open()) }\n",
		"store/store.go":      "package store\n\nimport \"example.com/app/store/codec\"\n\n// Open opens.\nfunc Open() string { return codec.Name }\n",
		"store/codec/c.go":    "package codec\n\nconst Name = \"c\"\n",
		"py/app.py":           "import os\nimport py.util as u\nfrom .models import User\nfrom . import helpers\n\ndef run():\n    return u.x\n",
		"py/util.py":          "x = 1\n",
		"py/models.py":        "class User:\n    pass\n",
		"py/helpers.py":       "def h():\n    pass\n",
		"web/app.ts":          "import { api } from './api';\nimport React from 'react';\nexport { thing } from './lib/thing.js';\nconst cfg = require('./config');\n",
		"web/api.ts":          "export const api = 1;\n",
		"web/lib/thing.ts":    "export const thing = 2;\n",
		"web/config/index.js": "module.exports = {};\n",
	}
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := OpenStore(filepath.Join(t.TempDir(), "pebble"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := &Indexer{Root: root, Store: st, Project: NewProject(root)}
	if _, err := ix.Run(context.Background(), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	targets := map[string][]string{
		"main.go":        {"store"},
		"store/store.go": {"store/codec"},
		"py/app.py":      {"py/util.py", "py/models.py", "py/helpers.py"},
		"web/app.ts":     {"web/api.ts", "web/lib/thing.ts", "web/config/index.js"},
	}
	for file, want := range targets {
		got, err := st.ImportTargets(file)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ImportTargets(%s) = %v, want %v", file, got, want)
		}
	}
	importers := map[string][]string{
		ImportKey("store/store.go"): {"main.go"},
		"py/models.py":              {"py/app.py"},
		"web/api.ts":                {"web/app.ts"},
	}
	for target, want := range importers {
		got, err := st.Importers(target)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Importers(%s) = %v, want %v", target, got, want)
		}
	}
	// An edit that drops the import removes the edge.
	if err := os.WriteFile(filepath.Join(root, "web/app.ts"), []byte("export const x = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(5 * time.Second)
	_ = os.Chtimes(filepath.Join(root, "web/app.ts"), later, later)
	if _, err := ix.Run(context.Background(), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Importers("web/api.ts"); len(got) != 0 {
		t.Errorf("after the edit, Importers(web/api.ts) = %v, want none", got)
	}
}

// TestProjectCacheFiles checks that isFile answers from one stat per path
// while an index run caches them (cacheFiles), and from the file system
// again once the caching ends.
func TestProjectCacheFiles(t *testing.T) {
	root := t.TempDir()
	p := NewProject(root)
	write := func(rel string) {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, rel), []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/b.py")
	end := p.cacheFiles()
	if !p.isFile("a/b.py") || p.isFile("a/c.py") || p.isFile("a") {
		t.Fatal("isFile: a/b.py is the only file")
	}
	write("a/c.py")
	if err := os.Remove(filepath.Join(root, "a/b.py")); err != nil {
		t.Fatal(err)
	}
	if !p.isFile("a/b.py") || p.isFile("a/c.py") {
		t.Error("isFile during the run: want the answers of its first stats")
	}
	p.cacheFiles()() // a nested run leaves the outer one's cache
	if p.isFile("a/c.py") {
		t.Error("a nested run's end dropped the outer run's cache")
	}
	end()
	if p.isFile("a/b.py") || !p.isFile("a/c.py") {
		t.Error("isFile after the run: want the file system's answers")
	}
}
