package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/daemon"
	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/internal/timing"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/memfile"
	"github.com/spf13/cobra"
)

// backend is where a verb's commands run: the engine over the workspace's
// store opened in this process (api.Engine), or the daemon that owns the
// store (api.Client over LSP executeCommand). Both implement
// api.Interface, so output does not depend on which ran.
type backend struct {
	api.Interface
	// engine is Interface when the store is opened directly (nil for a
	// daemon connection): its Progress draws the progress bar.
	engine *api.Engine
	close  func() error
}

// Close releases the store or the daemon connection.
func (b *backend) Close() error { return b.close() }

// connect returns the daemon backend when a daemon serves the workspace of
// g.dir (and --no-daemon is not given), else the direct backend.
func (g *globals) connect(ctx context.Context) (*backend, error) {
	if !g.noDaemon {
		root, err := memory.FindRoot(g.dir)
		if err != nil {
			return nil, err
		}
		c, err := daemon.Dial(daemon.Target{Root: root, Version: version}, daemon.VerbLSP)
		switch {
		case err == nil:
			cl, err := initClient(ctx, c, root)
			if err != nil {
				return nil, err
			}
			return &backend{Interface: api.Client{Caller: cl}, close: func() error {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				return cl.Close(ctx)
			}}, nil
		case errors.Is(err, daemon.ErrNotRunning):
			// Open the store directly.
		default:
			return nil, fmt.Errorf("%w (run with --no-daemon to open the store directly)", err)
		}
	}
	timing.Mark("connect: no daemon")
	w, err := g.open("")
	timing.Mark("workspace open (pebble)")
	if err != nil {
		return nil, err
	}
	if g.readOnly { // search, context: open the vector index meanwhile
		w.PrefetchVectors()
	}
	if g.hintOut != nil {
		hintUnindexed(g.hintOut, w)
	}
	e := &api.Engine{Host: api.Single{W: w}, IndexFirst: true}
	return &backend{Interface: e, engine: e, close: w.Close}, nil
}

// initClient starts an LSP client session on the daemon connection c
// with root as its only folder and no initial check; c is closed on error.
func initClient(ctx context.Context, c *daemon.Conn, root string) (*lspconn.Client, error) {
	cl := lspconn.NewClient(c, lspconn.ClientOptions{})
	ictx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := cl.Initialize(ictx, root, false); err != nil {
		c.Close()
		return nil, fmt.Errorf("gloss daemon (pid %d): %w", c.Hello.PID, err)
	}
	return cl, nil
}

// location turns a CLI path (relative to -C) and 1-based inclusive lines
// (first 0: the whole file) into a command's Location.
func (g *globals) location(path string, first, last int) (api.Location, error) {
	if path == "" {
		return api.Location{}, errors.New("empty path")
	}
	abs, err := filepath.Abs(g.resolvePath(path))
	if err != nil {
		return api.Location{}, err
	}
	return lineLocation(abs, first, last), nil
}

// lineLocation is the Location of lines first to last (first 0: the
// whole file) of the absolute path abs.
func lineLocation(abs string, first, last int) api.Location {
	loc := api.Location{URI: api.PathToURI(abs)}
	if first > 0 {
		loc.Range = api.LinesRange(first, last)
	}
	return loc
}

// batchLocation returns location for the lines of one `remember --batch`:
// the working directory is read once, where filepath.Abs in location
// reads it per path (os.Getwd stats "." and $PWD: 20,000 lines spent
// 0.35 CPU-s in those calls). The result for each path is location's
// (filepath.Abs of unix: a relative path joined to the working
// directory, an absolute one cleaned) as long as the process's working
// directory does not change, which gloss never does. When the working
// directory cannot be read it is location itself, whose error each line
// then reports.
func (g *globals) batchLocation() func(path string, first, last int) (api.Location, error) {
	wd, err := os.Getwd()
	if err != nil {
		return g.location
	}
	return func(path string, first, last int) (api.Location, error) {
		if path == "" {
			return api.Location{}, errors.New("empty path")
		}
		p := g.resolvePath(path)
		if filepath.IsAbs(p) {
			p = filepath.Clean(p)
		} else {
			p = filepath.Join(wd, p)
		}
		return lineLocation(p, first, last), nil
	}
}

// only returns the single workspace entry of a result for one folder.
func only[T any](list []T, root string) (T, error) {
	var zero T
	if len(list) == 0 {
		return zero, fmt.Errorf("the daemon has no workspace open for %s", root)
	}
	return list[0], nil
}

// callVerb connects to the backend (globals.connect), runs call on it and
// prints the result: as indented JSON with --json, else through text.
// Errors of the connection, the call and text are returned as they are.
func callVerb[R any](cmd *cobra.Command, g *globals, call func(context.Context, api.Interface) (R, error), text func(io.Writer, R) error) error {
	b, err := g.connect(cmd.Context())
	if err != nil {
		return err
	}
	defer b.Close()
	res, err := call(cmd.Context(), b)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(cmd.OutOrStdout(), res)
	}
	return text(cmd.OutOrStdout(), res)
}

// hintUnindexed writes to out, when w's store was never written (store
// generation 0: no gloss index, remember or check ran with this data
// home) and its repository carries shared memory files
// (memfile.Dir), that they are not loaded and how to load
// them: a fresh clone's first list or search would otherwise show
// nothing without saying why.
func hintUnindexed(out io.Writer, w *memory.Workspace) {
	if gen, err := w.Store.Generation(); err != nil || gen != 0 {
		return
	}
	files, _ := filepath.Glob(filepath.Join(w.Root, filepath.FromSlash(memfile.Dir), "*.md"))
	if len(files) == 0 {
		return
	}
	what := fmt.Sprintf("%d shared memories", len(files))
	if len(files) == 1 {
		what = "1 shared memory"
	}
	fmt.Fprintf(out, "gloss: this workspace is not indexed yet: the %s in %s/ are loaded by gloss index (or gloss check); run it first\n", what, memfile.Dir)
}
