package importgit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/internal/gitcat"
)

// gitCommit is one first-parent commit as `git log --raw` reports it.
type gitCommit struct {
	Hash    string
	Parents []string
	Author  string
	Email   string
	Time    time.Time
	Message string
	// Changes are the file changes against the first parent (the tree
	// diff; no contents).
	Changes []gitChange
}

// gitChange is one file changed by a commit: blob ids ("" when the file
// was added or deleted) and paths (OldPath differs on a rename).
type gitChange struct {
	OldPath, Path string
	OldBlob, Blob string
}

// gitCmd returns a git command in dir with a hermetic configuration: no
// prompts, no optional locks, no pager, no replace refs and unquoted
// paths.
func gitCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	all := append([]string{"-C", dir, "-c", "core.quotePath=false", "-c", "log.showSignature=false", "--no-pager", "--no-replace-objects"}, args...)
	cmd := exec.CommandContext(ctx, "git", all...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_NOSYSTEM=1")
	return cmd
}

// logFormat separates the fields of a commit by NUL bytes; the \x01 marks
// the start of a commit. The --raw lines follow the message's NUL.
const logFormat = "--format=%x00%x01%H %P%x00%an%x00%ae%x00%at%x00%B%x00"

// logReader streams `git log --first-parent --raw` one commit at a time:
// one git process for the whole history, whose tree diffs need no file
// contents (a blob missing from a partial clone does not stop it).
type logReader struct {
	cmd    *exec.Cmd
	r      *bufio.Reader
	stderr bytes.Buffer
}

// startLog starts `git log` over revs (oldest commit first).
func startLog(ctx context.Context, dir string, revs []string) (*logReader, error) {
	// Renames are detected when exact (-M100%, by blob id): similarity
	// would read blob contents, which fails on a blob missing from a
	// partial clone, and a renamed file that was also edited is then a
	// deletion and an addition.
	args := []string{"log", "--first-parent", "--diff-merges=first-parent", "--reverse", "--raw", "--no-abbrev", "-M100%", "--no-color", "--no-ext-diff", logFormat}
	args = append(args, revs...)
	args = append(args, "--")
	lr := &logReader{cmd: gitCmd(ctx, dir, args...)}
	out, err := lr.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	lr.cmd.Stderr = &lr.stderr
	if err := lr.cmd.Start(); err != nil {
		return nil, fmt.Errorf("git log: %w", err)
	}
	lr.r = bufio.NewReaderSize(out, 1<<16)
	if _, err := lr.token(); err != nil && err != io.EOF { // the empty token before the first commit
		return nil, lr.fail(err)
	}
	return lr, nil
}

// token returns the bytes up to the next NUL (without it).
func (lr *logReader) token() ([]byte, error) {
	b, err := lr.r.ReadBytes(0)
	if err == nil {
		b = b[:len(b)-1]
	}
	return b, err
}

// fail ends the process and returns err with git's message.
func (lr *logReader) fail(err error) error {
	_ = lr.cmd.Process.Kill()
	_ = lr.cmd.Wait()
	if msg := strings.TrimSpace(lr.stderr.String()); msg != "" {
		return fmt.Errorf("git log: %v: %s", err, msg)
	}
	return fmt.Errorf("git log: %w", err)
}

// Next returns the next commit, or io.EOF after the last one.
func (lr *logReader) Next() (*gitCommit, error) {
	var tok [6][]byte
	for i := range tok {
		b, err := lr.token()
		if err == io.EOF && i == 5 {
			tok[i] = b // the last commit's raw lines end at EOF
			break
		}
		if err == io.EOF && i == 0 && len(b) == 0 {
			if werr := lr.cmd.Wait(); werr != nil {
				return nil, fmt.Errorf("git log: %v: %s", werr, strings.TrimSpace(lr.stderr.String()))
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, lr.fail(err)
		}
		tok[i] = b
	}
	if len(tok[0]) == 0 || tok[0][0] != 1 {
		return nil, lr.fail(errors.New("unexpected output"))
	}
	fields := strings.Fields(string(tok[0][1:]))
	if len(fields) == 0 {
		return nil, lr.fail(errors.New("commit without hash"))
	}
	c := &gitCommit{Hash: fields[0], Parents: fields[1:], Author: string(tok[1]), Email: string(tok[2]), Message: strings.TrimSpace(string(tok[4]))}
	if sec, err := strconv.ParseInt(string(tok[3]), 10, 64); err == nil {
		c.Time = time.Unix(sec, 0).UTC()
	}
	c.Changes = parseRaw(tok[5])
	return c, nil
}

// Close stops git.
func (lr *logReader) Close() {
	if lr.cmd.ProcessState == nil {
		_ = lr.cmd.Process.Kill()
		_ = lr.cmd.Wait()
	}
}

// parseRaw reads `--raw` lines (git-diff(1), "Raw output format"):
// ":old-mode new-mode old-blob new-blob status\tpath[\tpath]". Only
// regular files are kept (no symlinks, no submodules).
func parseRaw(b []byte) []gitChange {
	var out []gitChange
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, ":") {
			continue
		}
		meta, paths, ok := strings.Cut(line[1:], "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 5 {
			continue
		}
		if !regularMode(f[0]) && !regularMode(f[1]) {
			continue
		}
		ps := strings.Split(paths, "\t")
		c := gitChange{OldPath: ps[0], Path: ps[len(ps)-1], OldBlob: f[2], Blob: f[3]}
		if !regularMode(f[0]) || zeroID(c.OldBlob) {
			c.OldBlob, c.OldPath = "", ""
		}
		if !regularMode(f[1]) || zeroID(c.Blob) {
			c.Blob = ""
		}
		out = append(out, c)
	}
	return out
}

func regularMode(m string) bool { return m == "100644" || m == "100755" }

func zeroID(id string) bool { return strings.Trim(id, "0") == "" }

// catFile reads blobs through one `git cat-file --batch` process
// (gitcat.Reader).
type catFile struct {
	r *gitcat.Reader
	// memo, when set, keeps the blobs read (one commit's, which the import
	// reads twice: to count changed functions, then to parse them).
	memo map[string][]byte
}

func startCatFile(ctx context.Context, dir string) (*catFile, error) {
	r, err := gitcat.Start(gitCmd(ctx, dir, "cat-file", "--batch"))
	if err != nil {
		return nil, err
	}
	return &catFile{r: r}, nil
}

// errMissing reports a blob that is not in the repository (a partial
// clone).
var errMissing = gitcat.ErrMissing

// errTooLarge reports a blob over the indexed file size limit.
var errTooLarge = gitcat.ErrTooLarge

// Blob returns the content of a blob; errMissing when git does not have
// it, and errTooLarge when the blob is larger than max bytes (its content
// is skipped).
func (c *catFile) Blob(id string, max int64) ([]byte, error) {
	if data, ok := c.memo[id]; ok {
		return data, nil
	}
	_, data, err := c.r.Read(id, max)
	if err == nil && c.memo != nil {
		c.memo[id] = data
	}
	return data, err
}

// Close ends the process.
func (c *catFile) Close() { _ = c.r.Close() }
