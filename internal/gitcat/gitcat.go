// Package gitcat reads git objects through one long-running
// `git cat-file --batch` process (git-cat-file(1), "BATCH OUTPUT"): one
// request line, one header line "<oid> <type> <size>", the content and a
// newline. It is the reader import-git and gloss-eval share.
package gitcat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// ErrMissing reports an object git does not have (header "<name>
// missing": a partial clone, a path not at that revision) or cannot name
// uniquely ("<name> ambiguous").
var ErrMissing = errors.New("object missing")

// ErrTooLarge reports an object larger than the caller's limit; its
// content was skipped.
var ErrTooLarge = errors.New("object too large")

// Reader is one `git cat-file --batch` process. It is not safe for
// concurrent use.
type Reader struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	inc io.Closer
	out *bufio.Reader
}

// Start starts cmd, which must be a `git … cat-file --batch` command not
// yet started (the caller sets its directory, environment and context).
func Start(cmd *exec.Cmd) (*Reader, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &Reader{cmd: cmd, in: bufio.NewWriter(in), inc: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

// Read returns the type ("blob", "tree", …) and content of the object
// name (an object id or "REV:PATH", without a newline). It fails with
// ErrMissing when git has no such object, with ErrTooLarge when it is
// larger than max bytes, and with an error on a broken process or an
// unexpected header.
func (r *Reader) Read(name string, max int64) (typ string, data []byte, err error) {
	if _, err := r.in.WriteString(name + "\n"); err != nil {
		return "", nil, err
	}
	if err := r.in.Flush(); err != nil {
		return "", nil, err
	}
	head, err := r.out.ReadString('\n')
	if err != nil {
		return "", nil, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(head)
	if len(f) == 2 && (f[1] == "missing" || f[1] == "ambiguous") {
		return "", nil, ErrMissing
	}
	if len(f) != 3 {
		return "", nil, fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(head))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return "", nil, fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(head))
	}
	if size > max {
		if _, err := r.out.Discard(int(size) + 1); err != nil {
			return "", nil, err
		}
		return f[1], nil, ErrTooLarge
	}
	buf := make([]byte, size+1)
	if _, err := io.ReadFull(r.out, buf); err != nil {
		return "", nil, fmt.Errorf("git cat-file: %w", err)
	}
	return f[1], buf[:size], nil
}

// Close ends the process and returns its exit error.
func (r *Reader) Close() error {
	_ = r.inc.Close()
	return r.cmd.Wait()
}
