package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWalkSkips checks the skip reasons of a walk outside git (nested
// .gitignore files applied relative to their directory).
func TestWalkSkips(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":            "*.gen.go\nbuild/\n",
		"a.go":                  "package a\n",
		"a.gen.go":              "package a\n",
		"build/out.go":          "package b\n",
		"sub/.gitignore":        "local.py\n",
		"sub/local.py":          "x = 1\n",
		"sub/keep.py":           "x = 1\n",
		"vendor/v/v.go":         "package v\n",
		"web/node_modules/m.js": "x\n",
		"web/app.ts":            "let x = 1\n",
		"big.go":                "package a\n" + strings.Repeat("// filler\n", 200),
		"README.md":             "# r\n",
	})
	if err := os.Symlink(filepath.Join(root, "a.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	res, err := Walk(root, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Files {
		got = append(got, c.Path)
	}
	if strings.Join(got, ",") != "a.go,sub/keep.py,web/app.ts" {
		t.Errorf("files = %v", got)
	}
	want := map[string]int{SkipIgnored: 3, SkipVendor: 1, SkipNodeModules: 1, SkipTooLarge: 1, SkipSymlink: 1, SkipUnsupported: 3}
	for k, v := range want {
		if res.Skipped[k] != v {
			t.Errorf("skipped[%s] = %d, want %d (all: %v)", k, res.Skipped[k], v, res.Skipped)
		}
	}
}
