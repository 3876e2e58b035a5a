package index

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	gitignore "github.com/sabhiram/go-gitignore"
)

// Skip reasons counted by Walk, as printed by `gloss index`.
const (
	SkipVendor      = "vendor"
	SkipNodeModules = "node_modules"
	SkipBinary      = "binary"
	SkipTooLarge    = "too_large"
	SkipInvalidUTF8 = "invalid_utf8"
	SkipSymlink     = "symlink"
	SkipIgnored     = "gitignored"
	SkipUnsupported = "unsupported_language"
	SkipUnreadable  = "unreadable"
)

// DefaultMaxFileSize is the size above which files are skipped (1 MiB).
const DefaultMaxFileSize = 1 << 20

// Candidate is a file Walk selected for indexing.
type Candidate struct {
	Path    string // workspace-relative, slash-separated
	Lang    *Language
	Size    int64
	ModTime int64 // UnixNano
}

// WalkResult is the outcome of walking a workspace.
type WalkResult struct {
	Files []Candidate
	// Skipped counts files left out, by Skip* reason.
	Skipped map[string]int
}

// Walk lists the files of the workspace at root that gloss indexes. Inside a
// git work tree it asks git for tracked and untracked-but-not-ignored files
// (`git ls-files -co --exclude-standard`), which is exactly git's own
// .gitignore/.git/info/exclude/core.excludesFile semantics; elsewhere it
// walks the tree and applies every .gitignore it meets. Files under vendor/
// or node_modules/, symlinks, files without a registered language and files
// over maxSize bytes are skipped and counted. Content checks (binary,
// invalid UTF-8) happen when the file is read, see CheckContent.
func Walk(root string, maxSize int64) (WalkResult, error) {
	res := WalkResult{Skipped: map[string]int{}}
	paths, ignored, err := gitFiles(root)
	if err != nil {
		paths, ignored, err = walkFS(root)
		if err != nil {
			return res, err
		}
	}
	if ignored > 0 {
		res.Skipped[SkipIgnored] = ignored
	}
	sort.Strings(paths)
	for _, p := range paths {
		if reason := pathSkip(p); reason != "" {
			res.Skipped[reason]++
			continue
		}
		lang := LanguageFor(p)
		if lang == nil {
			res.Skipped[SkipUnsupported]++
			continue
		}
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			continue // listed by git but deleted from the work tree
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			res.Skipped[SkipSymlink]++
			continue
		}
		if !info.Mode().IsRegular() {
			continue
		}
		if maxSize > 0 && info.Size() > maxSize {
			res.Skipped[SkipTooLarge]++
			continue
		}
		res.Files = append(res.Files, Candidate{Path: p, Lang: lang, Size: info.Size(), ModTime: info.ModTime().UnixNano()})
	}
	return res, nil
}

// pathSkip returns the skip reason implied by a path alone, or "".
func pathSkip(p string) string {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		switch seg {
		case "vendor":
			return SkipVendor
		case "node_modules":
			return SkipNodeModules
		}
	}
	return ""
}

// CheckContent returns the skip reason for file content, or "": a NUL byte
// in the first 8000 bytes (git's own binary heuristic) means binary; text
// that is not valid UTF-8 is refused because positions could not be mapped
// to the UTF-16 columns editors use.
func CheckContent(src []byte) string {
	head := src
	if len(head) > 8000 {
		head = head[:8000]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return SkipBinary
	}
	if !utf8.Valid(src) {
		return SkipInvalidUTF8
	}
	return ""
}

// gitFiles lists files with git; ignored counts ignored entries (files or
// whole directories) that git reports.
func gitFiles(root string) ([]string, int, error) {
	cmd := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
	out, err := cmd.Output()
	if err != nil {
		return nil, 0, err
	}
	var paths []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			paths = append(paths, string(p))
		}
	}
	ign, err := exec.Command("git", "-C", root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--no-empty-directory").Output()
	ignored := 0
	if err == nil {
		ignored = bytes.Count(ign, []byte{0})
	}
	return paths, ignored, nil
}

// walkFS walks root applying .gitignore files (each relative to its own
// directory), skipping .git directories.
func walkFS(root string) ([]string, int, error) {
	type matcher struct {
		dir string // slash path relative to root, "" for root
		m   *gitignore.GitIgnore
	}
	var matchers []matcher
	var paths []string
	ignored := 0
	isIgnored := func(rel string, isDir bool) bool {
		for _, m := range matchers {
			sub := rel
			if m.dir != "" {
				if !strings.HasPrefix(rel, m.dir+"/") {
					continue
				}
				sub = strings.TrimPrefix(rel, m.dir+"/")
			}
			if isDir {
				sub += "/"
			}
			if m.m.MatchesPath(sub) {
				return true
			}
		}
		return false
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			if rel != "." && isIgnored(rel, true) {
				ignored++
				return filepath.SkipDir
			}
			if gi, err := gitignore.CompileIgnoreFile(filepath.Join(p, ".gitignore")); err == nil {
				dir := rel
				if dir == "." {
					dir = ""
				}
				matchers = append(matchers, matcher{dir: dir, m: gi})
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return nil
		}
		if isIgnored(rel, false) {
			ignored++
			return nil
		}
		paths = append(paths, rel)
		return nil
	})
	return paths, ignored, err
}
