package daemon

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openRunFile opens a file of the daemon's run directory (lock, log) with
// flag (os.O_CREATE is typical) and mode 0600, refusing to follow a symlink
// at path (O_NOFOLLOW) and refusing anything but a regular file owned by
// the current user. Another local user, or a stale attacker-placed link
// such as <key>.lock → ~/.bashrc, can then never make gloss truncate or
// append to a file elsewhere.
func openRunFile(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0o600)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("%s is a symlink: refusing to follow it (remove it)", path)
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%v): refusing to use it", path, st.Mode().Type())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		f.Close()
		return nil, fmt.Errorf("%s belongs to uid %d, not to you (uid %d): refusing to use it", path, sys.Uid, os.Getuid())
	}
	return f, nil
}
