package index

import (
	"os"
	"path/filepath"
)

// ProjectMarkers are the files and directories whose presence in a
// directory makes it a project root that gloss indexes without --force:
// version control (.git, also a file in worktrees and submodules; .hg;
// .svn), gloss's own .gloss directory, and the manifests of the build
// tools of the languages gloss parses and of other common ones.
var ProjectMarkers = []string{
	".git", ".hg", ".svn", ".gloss",
	"go.mod", "go.work",
	"package.json", "tsconfig.json", "deno.json", "deno.jsonc",
	"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile",
	"Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts",
	"Gemfile", "composer.json", "mix.exs", "CMakeLists.txt", "Makefile",
}

// IsProjectRoot reports whether dir holds one of ProjectMarkers. A
// directory without any (a home directory, /tmp, Downloads) is not indexed
// unless the user insists (--force): indexing it would walk unrelated
// files.
func IsProjectRoot(dir string) bool {
	for _, m := range ProjectMarkers {
		if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
			return true
		}
	}
	return false
}
