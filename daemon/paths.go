// Package daemon runs one gloss daemon per workspace and connects to it:
// the daemon owns the workspace's Pebble store and search index and serves
// any number of language-server sessions (editors through `gloss lsp`,
// agents and CLI calls) on a unix socket, so that they share one store and
// see each other's changes at once. The model is gopls's -remote=auto
// forwarder.
//
// Files, under Dir of Paths (mode 0700, owned by the user):
//
//	<key>.sock   the unix socket (mode 0600)
//	<key>.lock   flock'ed by the running daemon for its whole life; holds its pid
//	<key>.start  flock'ed by a client while it starts a daemon
//	<key>.log    the daemon's log (stderr)
//
// where key is the first 16 hex digits of SHA-256(data home, project id).
// A socket left by a killed daemon is stale when the .lock file is not
// locked: the next daemon removes it.
package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Paths are the files of one workspace's daemon.
type Paths struct {
	// Dir is the directory holding the files: $XDG_RUNTIME_DIR/gloss,
	// else <data home>/run, else (when the socket path would be longer
	// than a unix socket address allows) $TMPDIR/gloss-<uid>.
	Dir string
	// Key names the daemon: 16 hex digits of SHA-256(home "\x00" project).
	Key string
	// Socket, Lock, Start and Log are the files described in the package
	// documentation.
	Socket, Lock, Start, Log string
}

// maxSocketPath is the longest usable unix socket path (sun_path is 108
// bytes on Linux, 104 on macOS and the BSDs, including the NUL).
const maxSocketPath = 103

// PathsFor returns the daemon files of project id (memory.ProjectID) in
// data home (memory.DataHome). It creates the directory with mode 0700 and
// fails when the directory is not owned by the current user or is
// accessible to others: a socket there could be someone else's.
func PathsFor(home, project string) (Paths, error) {
	sum := sha256.Sum256([]byte(home + "\x00" + project))
	key := hex.EncodeToString(sum[:8])
	dir := filepath.Join(home, "run")
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		dir = filepath.Join(x, "gloss")
	}
	if len(filepath.Join(dir, key+".sock")) > maxSocketPath {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("gloss-%d", os.Getuid()))
	}
	if err := privateDir(dir); err != nil {
		return Paths{}, err
	}
	base := filepath.Join(dir, key)
	return Paths{Dir: dir, Key: key, Socket: base + ".sock", Lock: base + ".lock", Start: base + ".start", Log: base + ".log"}, nil
}

// privateDir creates dir (mode 0700) and checks that it belongs to the
// current user and is closed to others.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("daemon directory: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("daemon directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("daemon directory %s is not a directory", dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("daemon directory %s belongs to uid %d, not to you (uid %d): refusing to use it", dir, sys.Uid, os.Getuid())
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("daemon directory %s is open to other users (%v) and cannot be fixed: %w", dir, st.Mode().Perm(), err)
		}
	}
	return nil
}

// checkSocket fails unless path is a socket owned by the current user.
func checkSocket(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if st.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s is not a socket", path)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("socket %s belongs to uid %d, not to you (uid %d): refusing to connect", path, sys.Uid, os.Getuid())
	}
	return nil
}
