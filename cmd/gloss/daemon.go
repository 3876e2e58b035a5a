package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/daemon"
	"github.com/gloss-dev/gloss/memory"
)

// defaultIdleTimeout is how long a daemon started by `gloss lsp` lives
// without sessions.
const defaultIdleTimeout = 10 * time.Minute

// daemonKeepBatchFiles is how long the daemon keeps the files one
// RememberBatch call built from their index records for the next call of
// the same batch (memory.Options.KeepBatchFilesFor): `gloss remember
// --batch` sends its next 10,000 lines within a second of each answer.
const daemonKeepBatchFiles = 30 * time.Second

func daemonCmd(g *globals) *cobra.Command {
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run the workspace's daemon: one store shared by editors, agents and CLI calls",
		Long: `Run the gloss daemon of the workspace containing -C (default: the current
directory). It owns the workspace's store and serves language-server sessions
on a unix socket under $XDG_RUNTIME_DIR/gloss (else <data home>/run):
` + "`gloss lsp`" + ` forwards editors to it (starting it when needed) and CLI verbs
run through it while it runs, so every client sees every change at once.
It exits after --idle-timeout without sessions (0: never).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer boundServeMemory()()
			err := daemon.Run(cmd.Context(), daemon.Config{
				Dir: g.dir, Memory: memory.Options{MaxFileSize: g.maxSize, Force: g.force, KeepBatchFiles: true, KeepBatchFilesFor: daemonKeepBatchFiles}, IdleTimeout: idle, Version: version, Log: cmd.ErrOrStderr(),
			})
			if errors.Is(err, daemon.ErrRunning) {
				fmt.Fprintln(cmd.ErrOrStderr(), "gloss:", err)
				return exitError{code: 2}
			}
			return err
		},
	}
	cmd.Flags().DurationVar(&idle, "idle-timeout", defaultIdleTimeout, "exit after this long without sessions (0: never)")
	cmd.AddCommand(daemonStatusCmd(g), daemonStopCmd(g))
	return cmd
}

func daemonStatusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show whether a daemon serves the workspace, and its pid, version and sessions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := memory.FindRoot(g.dir)
			if err != nil {
				return err
			}
			c, err := daemon.Dial(daemon.Target{Root: root, Version: version}, daemon.VerbStatus)
			if errors.Is(err, daemon.ErrNotRunning) {
				if g.json {
					return printJSON(cmd.OutOrStdout(), map[string]any{"running": false})
				}
				fmt.Fprintln(cmd.OutOrStdout(), "no daemon is running for", root)
				return exitError{code: 3}
			}
			if err != nil {
				return err
			}
			c.Close()
			h := c.Hello
			if g.json {
				return printJSON(cmd.OutOrStdout(), struct {
					Running bool `json:"running"`
					daemon.Hello
				}{true, h})
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "daemon:     pid %d, gloss %s, protocol %d, up %s\n", h.PID, h.Version, h.Protocol, time.Since(h.Started).Round(time.Second))
			fmt.Fprintf(out, "workspace:  %s (project %s)\n", h.Root, h.Project)
			fmt.Fprintf(out, "sessions:   %d other than this one, %d open stores\n", h.Sessions-1, h.Workspaces)
			return nil
		},
	}
}

func daemonStopCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the workspace's daemon (its sessions end; editors restart gloss lsp)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := memory.FindRoot(g.dir)
			if err != nil {
				return err
			}
			h, err := daemon.Stop(cmd.Context(), daemon.Target{Root: root, Version: version})
			if errors.Is(err, daemon.ErrNotRunning) {
				fmt.Fprintln(cmd.OutOrStdout(), "no daemon is running for", root)
				return nil
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stopped the daemon (pid %d) of %s\n", h.PID, h.Root)
			return nil
		},
	}
}
