package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/gloss-dev/gloss/internal/gitcat"
)

// Git runs git commands in one repository with an isolated configuration:
// no system config, a private HOME (so no global config), hooks disabled.
type Git struct {
	// Dir is the working directory of every command (the repository root).
	Dir string
	// Env is the complete environment of every command.
	Env []string
}

// isolatedEnv returns the current environment without GIT_* variables and
// with HOME, XDG_CONFIG_HOME and the git isolation variables pointing into
// home, so neither the developer's git config nor their hooks take part.
func isolatedEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GIT_"), k == "HOME", k == "XDG_CONFIG_HOME", k == "GLOSS_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+path.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
	)
}

func (g *Git) command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"-c", "core.hooksPath=/dev/null", "-c", "core.quotePath=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = g.Dir
	cmd.Env = g.Env
	return cmd
}

// Run runs git with args and returns its standard output. A failure carries
// the command line and git's standard error.
func (g *Git) Run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Pair is one evaluated commit with its first parent.
type Pair struct {
	// Parent is the first parent's hash (P).
	Parent string `json:"parent"`
	// Commit is the commit's hash (C).
	Commit string `json:"commit"`
	// Subject is the first line of the commit message.
	Subject string `json:"subject"`
}

// Pairs returns the last n non-merge commits of the first-parent history of
// rev, oldest first, each with its first parent. Root commits are left out.
func (g *Git) Pairs(ctx context.Context, rev string, n int) ([]Pair, error) {
	out, err := g.Run(ctx, "log", "--first-parent", "--no-merges", "-n", strconv.Itoa(n), "--format=%H %P%x00%s", rev, "--")
	if err != nil {
		return nil, err
	}
	var pairs []Pair
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		hashes, subject, _ := strings.Cut(line, "\x00")
		f := strings.Fields(hashes)
		if len(f) < 2 {
			continue // root commit
		}
		pairs = append(pairs, Pair{Parent: f[1], Commit: f[0], Subject: subject})
	}
	for i, j := 0, len(pairs)-1; i < j; i, j = i+1, j-1 {
		pairs[i], pairs[j] = pairs[j], pairs[i]
	}
	return pairs, nil
}

// Change is one entry of `git diff --name-status -M`.
type Change struct {
	// Status is the one-letter status: A, C, D, M, R, T (or U, X).
	Status byte
	// Old is the path in the parent ("" for A).
	Old string
	// New is the path in the commit ("" for D).
	New string
}

// NameStatus lists the files changed between parent and commit, with rename
// detection.
func (g *Git) NameStatus(ctx context.Context, parent, commit string) ([]Change, error) {
	out, err := g.Run(ctx, "diff", "--no-ext-diff", "--name-status", "-z", "-M", parent, commit, "--")
	if err != nil {
		return nil, err
	}
	f := strings.Split(string(out), "\x00")
	var changes []Change
	for i := 0; i < len(f); {
		st := f[i]
		if st == "" {
			i++
			continue
		}
		switch st[0] {
		case 'R', 'C':
			if i+2 >= len(f) {
				return nil, fmt.Errorf("malformed name-status output")
			}
			changes = append(changes, Change{Status: st[0], Old: f[i+1], New: f[i+2]})
			i += 3
		default:
			if i+1 >= len(f) {
				return nil, fmt.Errorf("malformed name-status output")
			}
			c := Change{Status: st[0], Old: f[i+1], New: f[i+1]}
			switch st[0] {
			case 'A':
				c.Old = ""
			case 'D':
				c.New = ""
			}
			changes = append(changes, c)
			i += 2
		}
	}
	return changes, nil
}

// ListGoFiles lists the .go blobs directly inside dir ("." for the root) at
// rev, as repository-relative slash paths.
func (g *Git) ListGoFiles(ctx context.Context, rev, dir string) ([]string, error) {
	args := []string{"ls-tree", "-z", rev, "--"}
	if dir != "." && dir != "" {
		args = append(args, dir+"/")
	}
	out, err := g.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if !ok || !strings.HasSuffix(p, ".go") {
			continue
		}
		if f := strings.Fields(meta); len(f) == 3 && f[1] == "blob" {
			files = append(files, p)
		}
	}
	return files, nil
}

// Hunk is one hunk header of a unified diff with zero context lines.
type Hunk struct {
	// OldStart and OldCount describe the removed lines of the parent
	// (OldCount 0: pure insertion after line OldStart).
	OldStart, OldCount int
	// NewStart and NewCount describe the added lines of the commit.
	NewStart, NewCount int
}

// DiffHunks returns the hunks of `git diff -U0 --no-renames parent commit --
// path`.
func (g *Git) DiffHunks(ctx context.Context, parent, commit, p string) ([]Hunk, error) {
	out, err := g.Run(ctx, "diff", "--no-ext-diff", "--no-color", "--no-renames", "-U0", parent, commit, "--", p)
	if err != nil {
		return nil, err
	}
	return parseHunks(out)
}

func parseHunks(out []byte) ([]Hunk, error) {
	var hunks []Hunk
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "@@ -") {
			continue
		}
		rest := strings.TrimPrefix(line, "@@ -")
		oldSpec, rest, ok := strings.Cut(rest, " +")
		if !ok {
			return nil, fmt.Errorf("malformed hunk header %q", line)
		}
		newSpec, _, ok := strings.Cut(rest, " @@")
		if !ok {
			return nil, fmt.Errorf("malformed hunk header %q", line)
		}
		var h Hunk
		var err1, err2 error
		h.OldStart, h.OldCount, err1 = parseRange(oldSpec)
		h.NewStart, h.NewCount, err2 = parseRange(newSpec)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("malformed hunk header %q: %v", line, err)
		}
		hunks = append(hunks, h)
	}
	return hunks, nil
}

func parseRange(s string) (start, count int, err error) {
	a, b, ok := strings.Cut(s, ",")
	start, err = strconv.Atoi(a)
	if err != nil {
		return 0, 0, err
	}
	count = 1
	if ok {
		count, err = strconv.Atoi(b)
	}
	return start, count, err
}

// BlobReader reads file contents at a revision through one long-running
// `git cat-file --batch` process (gitcat.Reader), caching them.
type BlobReader struct {
	mu    sync.Mutex
	r     *gitcat.Reader
	cache map[string][]byte
}

// NewBlobReader starts `git cat-file --batch` in g's repository.
func NewBlobReader(ctx context.Context, g *Git) (*BlobReader, error) {
	r, err := gitcat.Start(g.command(ctx, "cat-file", "--batch"))
	if err != nil {
		return nil, err
	}
	return &BlobReader{r: r, cache: map[string][]byte{}}, nil
}

// Get returns the content of path at rev; ok is false when it does not
// exist there (or is not a blob).
func (b *BlobReader) Get(rev, p string) (data []byte, ok bool, err error) {
	if strings.ContainsAny(p, "\n") {
		return nil, false, nil
	}
	key := rev + ":" + p
	b.mu.Lock()
	defer b.mu.Unlock()
	if d, hit := b.cache[key]; hit {
		return d, d != nil, nil
	}
	typ, data, err := b.r.Read(key, math.MaxInt64)
	if errors.Is(err, gitcat.ErrMissing) || err == nil && typ != "blob" {
		b.cache[key] = nil
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	b.cache[key] = data
	return data, true, nil
}

// Forget drops cached contents (call between commit pairs to bound memory).
func (b *BlobReader) Forget() {
	b.mu.Lock()
	clear(b.cache)
	b.mu.Unlock()
}

// Close stops the cat-file process.
func (b *BlobReader) Close() error { return b.r.Close() }
