package memory

import (
	"bytes"
	"os"
	"path/filepath"
)

// gitTopFast finds the git work tree containing the symlink-free
// directory dir without starting git (`git rev-parse --show-toplevel`
// is a process: 10–80 ms of a CLI call's wall time on a loaded machine):
// the nearest ancestor-or-self holding a .git directory with a HEAD file
// (a repository) or a .git file starting "gitdir:" (a linked worktree or
// a submodule). ok is false, and FindRoot asks git, whenever git might
// answer otherwise: an environment variable that moves the repository or
// limits discovery (GIT_DIR, GIT_WORK_TREE, GIT_CEILING_DIRECTORIES,
// GIT_DISCOVERY_ACROSS_FILESYSTEM), a core.worktree setting, dir inside
// a .git directory, or no .git up to the file-system root.
func gitTopFast(dir string) (top string, ok bool) {
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"} {
		if _, set := os.LookupEnv(v); set {
			return "", false
		}
	}
	for d := dir; ; {
		if filepath.Base(d) == ".git" {
			return "", false
		}
		g := filepath.Join(d, ".git")
		if st, err := os.Lstat(g); err == nil {
			switch {
			case st.IsDir():
				if _, err := os.Stat(filepath.Join(g, "HEAD")); err != nil {
					return "", false
				}
				cfg, err := os.ReadFile(filepath.Join(g, "config"))
				if err != nil || bytes.Contains(bytes.ToLower(cfg), []byte("worktree")) {
					return "", false
				}
				return d, true
			case st.Mode().IsRegular():
				data, err := os.ReadFile(g)
				if err != nil || !bytes.HasPrefix(data, []byte("gitdir:")) {
					return "", false
				}
				return d, true
			default:
				return "", false
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}
