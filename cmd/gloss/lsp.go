package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

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
	var noDaemon bool
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Run the language server on standard input and output (started by editors)",
		Long: `Run the gloss language server over stdio, next to the editor's own language
server: memories as hover and code lenses, warnings when the code they describe
changes, code actions and workspace/executeCommand commands (docs/commands.md).
Workspace folders come from the client's initialize request.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s := lsp.NewServer(lsp.Options{Memory: memory.Options{MaxFileSize: g.maxSize}, Log: cmd.ErrOrStderr(), Version: version})
			return s.Serve(cmd.Context(), stdio{cmd.InOrStdin(), cmd.OutOrStdout()})
		},
	}
	cmd.Flags().BoolVar(&noDaemon, "no-daemon", true, "run in-process (the only mode so far)")
	return cmd
}
