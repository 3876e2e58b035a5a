//go:build unix

package index

import "syscall"

// sourceOpenFlags make opening a FIFO return at once (instead of waiting for
// a writer) and refuse a symlink as the last path element.
const sourceOpenFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
