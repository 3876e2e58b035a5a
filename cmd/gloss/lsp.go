package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/daemon"
	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/lsp"
	"github.com/gloss-dev/gloss/memory"
)

// stdio joins standard input and output into one connection.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return os.Stdin.Close() }

func lspCmd(g *globals) *cobra.Command {
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Run the language server on standard input and output (started by editors)",
		Long: `Run the gloss language server over stdio, next to the editor's own language
server: memories as hover and code lenses, warnings when the code they describe
changes, code actions and workspace/executeCommand commands (docs/commands.md).

The session is forwarded to the daemon of the workspace named by the
initialize request (its first workspace folder, else rootUri, else -C), which
is started when none runs (gloss daemon), so that editors, agents and CLI calls
share one store and see each other's changes. --no-daemon serves the session in
this process instead; it then holds the store alone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer boundServeMemory()()
			in := bufio.NewReaderSize(cmd.InOrStdin(), 64<<10)
			out := cmd.OutOrStdout()
			if g.noDaemon {
				return serveInProcess(cmd, g, in, out)
			}
			first, dir, err := daemon.PeekInitialize(in)
			if err != nil {
				return fmt.Errorf("reading the initialize request: %w", err)
			}
			if dir == "" {
				dir = g.dir
			}
			root, err := memory.FindRoot(dir)
			if err == nil {
				var c *daemon.Conn
				c, err = connectDaemon(cmd, g, root, idle)
				if err == nil {
					defer c.Close()
					return daemon.Forward(in, out, c, first)
				}
				if storeBusy(err) {
					// Serving in-process would hold the store for the whole
					// session once it frees, and keep the daemon (and every
					// CLI call) out: say so instead.
					return fmt.Errorf("the memory store of %s is held by another gloss process (a long `gloss index`, or `gloss lsp --no-daemon`); start the editor's gloss again when it is done: %w", root, err)
				}
			}
			// Serve the session here rather than leave the editor without
			// one; the first message goes through again.
			fmt.Fprintf(cmd.ErrOrStderr(), "gloss lsp: no daemon (%v); serving in-process\n", err)
			replay := io.MultiReader(bytes.NewReader(lspconn.Frame(first)), in)
			return serveInProcess(cmd, g, replay, out)
		},
	}
	cmd.Flags().DurationVar(&idle, "daemon-idle-timeout", defaultIdleTimeout, "idle timeout of a daemon this command starts (0: never)")
	return cmd
}

// connectAttempts is how many times `gloss lsp` tries to start the daemon
// while another process holds the store (each start waits up to
// index.LockWait for it).
const connectAttempts = 3

// connectDaemon connects to root's daemon, starting it when none runs;
// while the store is busy (another process holds it) it tries again, up
// to connectAttempts times.
func connectDaemon(cmd *cobra.Command, g *globals, root string, idle time.Duration) (*daemon.Conn, error) {
	var err error
	for i := 0; i < connectAttempts; i++ {
		var c *daemon.Conn
		c, err = daemon.Connect(cmd.Context(), daemon.Target{Root: root, Version: version}, daemon.VerbLSP,
			daemon.StartOptions{Args: []string{"--idle-timeout", idle.String(), "--max-file-size", fmt.Sprint(g.maxSize)}})
		if err == nil || !storeBusy(err) {
			return c, err
		}
	}
	return nil, err
}

// storeBusy reports whether a daemon could not start because another
// process held the store (index.OpenStore's message, seen in the log tail
// daemon.Connect reports).
func storeBusy(err error) bool {
	return err != nil && strings.Contains(err.Error(), "another gloss process has held it")
}

func serveInProcess(cmd *cobra.Command, g *globals, in io.Reader, out io.Writer) error {
	s := lsp.NewServer(lsp.Options{Memory: memory.Options{MaxFileSize: g.maxSize, Force: g.force}, Log: cmd.ErrOrStderr(), Version: version})
	return s.Serve(cmd.Context(), stdio{in, out})
}
