package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/lspconn"
)

// pipes joins a child's standard output and input into one connection.
type pipes struct {
	io.Reader
	io.WriteCloser
}

// hoverTarget returns a Go (else any indexed) file of repo near the middle
// of the path order and the 0-based line and column of the name of its
// first function, or of its first line.
func hoverTarget(repo string) (string, []byte, int, int, error) {
	walk, err := index.Walk(repo, 1<<20)
	if err != nil {
		return "", nil, 0, 0, err
	}
	var cands []index.Candidate
	for _, c := range walk.Files {
		if c.Lang.Name == "go" {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		cands = walk.Files
	}
	if len(cands) == 0 {
		return "", nil, 0, 0, fmt.Errorf("no indexed file in %s", repo)
	}
	rel := cands[len(cands)/2].Path
	src, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(rel)))
	if err != nil {
		return "", nil, 0, 0, err
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "func ") {
			return rel, src, i, 5, nil
		}
	}
	return rel, src, 0, 0, nil
}

// measureFirstHover starts `gloss --no-daemon lsp` on the checkout with an
// empty store (nothing indexed), initializes it (initial check on), opens
// one file and asks for a hover on a function name: the row's seconds run
// from the process start to the hover's answer.
func measureFirstHover(ctx context.Context, c config) (row, error) {
	home := filepath.Join(c.work, "home-hover")
	_ = os.RemoveAll(home)
	defer os.RemoveAll(home)
	rel, src, line, col, err := hoverTarget(c.repo)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.hoverTimeout)
	defer cancel()
	cmd := exec.Command(c.gloss, "--no-daemon", "-C", c.repo, "lsp")
	cmd.Env = append(os.Environ(), "GLOSS_HOME="+home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	load := loadAvg()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	cl := lspconn.NewClient(pipes{stdout, stdin}, lspconn.ClientOptions{})
	if err := cl.Initialize(ctx, c.repo, true); err != nil {
		return nil, err
	}
	initialized := time.Since(start)
	uri := api.PathToURI(filepath.Join(c.repo, filepath.FromSlash(rel)))
	if err := cl.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "go", "version": 1, "text": string(src)}}); err != nil {
		return nil, err
	}
	var hover any
	err = cl.Call(ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": map[string]any{"line": line, "character": col}}, &hover)
	if err != nil {
		return nil, fmt.Errorf("hover: %w", err)
	}
	elapsed := time.Since(start)
	closeCtx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	_ = cl.Close(closeCtx)
	stop()
	return row{"work": "first_hover", "file": rel, "seconds": round(elapsed.Seconds(), 3),
		"initialize_seconds": round(initialized.Seconds(), 3), "load": load}, nil
}
