// Command gloss gives code a memory: notes anchored to code symbols that
// warn when the code they describe changes. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/internal/timing"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// exitError carries a process exit code without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	timing.Mark("main")
	stopProfile := startCPUProfile()
	stopTrace := startTrace()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRoot().ExecuteContext(ctx)
	stop()
	stopTrace()
	stopProfile()
	timing.Mark("exit")
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "gloss:", err)
		os.Exit(1)
	}
}

// globals are the flags every verb shares.
type globals struct {
	dir      string
	json     bool
	maxSize  int64
	noDaemon bool
	force    bool
	// readOnly is set for the verbs of readOnlyVerbs (root's
	// PersistentPreRun): without a daemon they open the store read-only.
	readOnly bool
	// storeCache is the Pebble block cache size of a store this process
	// opens for writing (memory.Options.StoreCacheBytes); 0 is the
	// default. `remember --batch` sets batchStoreCacheBytes.
	storeCache int64
	// storeBulk opens a store this process writes to for a bulk write
	// (memory.Options.StoreBulk); `remember --batch` sets it.
	storeBulk bool
	// hintOut, set for the verbs of unindexedHintVerbs (root's
	// PersistentPreRun), receives hintUnindexed's hint.
	hintOut io.Writer
}

// unindexedHintVerbs are the verbs that, without a daemon, say so when
// the workspace was never indexed but its repository carries shared
// memories (hintUnindexed): they would show nothing.
var unindexedHintVerbs = map[string]bool{"list": true, "search": true, "status": true, "at": true, "context": true}

// readOnlyVerbs are the verbs that only read the store. Without a daemon
// they open it read-only (memory.Options.ReadOnly), which spares a CLI
// call the flush and compaction of a writable Pebble opening.
var readOnlyVerbs = map[string]bool{"search": true, "context": true}

func newRoot() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "gloss",
		Short:         "Memories anchored to code that warn when the code changes",
		Long:          "gloss attaches notes (memories) to code symbols, follows them as code moves, and reports the ones whose code changed.\nRun `gloss index` in a repository to start.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			g.readOnly = readOnlyVerbs[cmd.Name()]
			if unindexedHintVerbs[cmd.Name()] && cmd.Parent() == cmd.Root() {
				g.hintOut = cmd.ErrOrStderr()
			}
		},
	}
	root.PersistentFlags().StringVarP(&g.dir, "dir", "C", ".", "run as if gloss was started in this directory")
	root.PersistentFlags().BoolVar(&g.json, "json", false, "print machine-readable JSON")
	root.PersistentFlags().Int64Var(&g.maxSize, "max-file-size", 1<<20, "skip files larger than this many bytes when indexing")
	root.PersistentFlags().BoolVar(&g.force, "force", false, "index a folder that is not a project (no git work tree, go.mod, package.json, pyproject.toml, Cargo.toml, .gloss/, …)")
	root.PersistentFlags().BoolVar(&g.noDaemon, "no-daemon", false, "open the store in this process even when a daemon serves the workspace")
	root.AddCommand(
		indexCmd(g), rememberCmd(g), checkCmd(g), atCmd(g), showCmd(g), listCmd(g),
		verifyCmd(g), forgetCmd(g), statusCmd(g), searchCmd(g), lspCmd(g), daemonCmd(g), mcpCmd(g),
		doctorCmd(g), importGitCmd(g),
	)
	root.AddCommand(teamCmds(g)...)
	root.AddCommand(relateCmd(g), whyCmd(g))
	root.AddCommand(lifecycleCmds(g)...)
	root.AddCommand(genericVerbs(g, root)...)
	return root
}
