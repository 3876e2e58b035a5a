package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/memfile"
)

// printProblems prints one line per memory file that could not be loaded.
func printProblems(w io.Writer, probs []memory.FileProblem) {
	for _, p := range probs {
		fmt.Fprintf(w, "warning: %s\n", p)
	}
}

// printSync prints what loading the memory files did, when anything.
func printSync(w io.Writer, r memory.SyncResult) {
	if len(r.Loaded)+len(r.Hidden)+len(r.Written) > 0 {
		fmt.Fprintf(w, "  memory files: %d loaded, %d hidden (file gone), %d written\n", len(r.Loaded), len(r.Hidden), len(r.Written))
	}
	printProblems(w, r.Problems)
}

// teamCmds are the verbs of team memories: share, unshare, export, import.
func teamCmds(g *globals) []*cobra.Command {
	return []*cobra.Command{scopeCmd(g, true), scopeCmd(g, false), exportCmd(g), importCmd(g)}
}

func scopeCmd(g *globals, share bool) *cobra.Command {
	use, short, done := "share ID", "Make a memory a project memory: writes .gloss/memories/ID.md, to commit with the code", "Shared"
	if !share {
		use, short, done = "unshare ID", "Make a project memory personal again: removes its file (commit the removal)", "Unshared"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			run := b.Share
			if !share {
				run = b.Unshare
			}
			m, err := run(cmd.Context(), api.IDArgs{ID: args[0]})
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), m)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s %q (scope %s)\n", done, m.ID, m.Title, m.Scope)
			if share {
				fmt.Fprintf(cmd.OutOrStdout(), "  file: %s\n", filepath.Join(memfile.Dir, m.ID+".md"))
			}
			return nil
		},
	}
}

func exportCmd(g *globals) *cobra.Command {
	var format, scope, output string
	cmd := &cobra.Command{
		Use:   "export [--format json|markdown|claude-md]",
		Short: "Print memories as JSON lines, memory files (Markdown) or a CLAUDE.md-style briefing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			res, err := b.Export(cmd.Context(), api.ExportArgs{Format: format, Scope: scope})
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), res)
			}
			if output != "" {
				if err := os.WriteFile(g.resolvePath(output), []byte(res.Text), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "exported %s to %s\n", plural(res.Count, "memory", "memories"), output)
				return nil
			}
			_, err = io.WriteString(cmd.OutOrStdout(), res.Text)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "json (one memory per line), markdown or claude-md")
	cmd.Flags().StringVar(&scope, "scope", "", "only personal or project memories")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to FILE instead of standard output")
	return cmd
}

func importCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE|DIR",
		Short: "Import memories from JSON lines, Markdown memory files or a directory of them (known ids are skipped)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := filepath.Abs(g.resolvePath(args[0]))
			if err != nil {
				return err
			}
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			res, err := b.Import(cmd.Context(), api.ImportArgs{Path: path})
			if err != nil {
				return err
			}
			if g.json {
				if err := printJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			} else {
				for _, e := range res.Errors {
					fmt.Fprintf(cmd.ErrOrStderr(), "gloss: %s\n", e)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%d imported, %d already known, %d failed\n", len(res.Imported), len(res.Skipped), len(res.Errors))
			}
			if len(res.Errors) > 0 {
				return exitError{code: 1}
			}
			return nil
		},
	}
}

// forgetAll runs `gloss forget --all`.
func forgetAll(cmd *cobra.Command, g *globals, yes bool, scope string) error {
	b, err := g.connect(cmd.Context())
	if err != nil {
		return err
	}
	defer b.Close()
	if !yes {
		all, err := b.List(cmd.Context(), api.ListArgs{})
		if err != nil {
			return err
		}
		n := 0
		for _, m := range all.Memories {
			if scope == "" || m.Scope == scope {
				n++
			}
		}
		return fmt.Errorf("this would forget %s and cannot be undone: run again with --yes", plural(n, "memory", "memories"))
	}
	res, err := b.ForgetAll(cmd.Context(), api.ForgetAllArgs{Scope: scope, Yes: true})
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(cmd.OutOrStdout(), res)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Forgot %s\n", plural(res.Forgotten, "memory", "memories"))
	return nil
}

// printGitHub prints a check result as GitHub Actions workflow commands:
// one ::warning annotation per stale anchor (on the code, lines 1-based)
// and per memory file that could not be loaded, then a summary line.
func printGitHub(w io.Writer, res api.CheckResult) {
	for _, m := range res.Memories {
		if !m.Stale || m.Source == memory.SourceImportedGit {
			continue // imported git history is expected to be stale
		}
		for _, a := range m.Anchors {
			if !memory.IsStale(a.Status) {
				continue
			}
			msg := fmt.Sprintf("%s [gloss:%s]: the code this memory describes is %s. %s\nRun `gloss show %s` for what changed, then `gloss verify %s` or update the memory.",
				m.Title, m.ID, strings.ReplaceAll(a.Status, "_", " "), firstLine(m.Body), m.ID, m.ID)
			fmt.Fprintf(w, "::warning file=%s,line=%d,endLine=%d,title=%s::%s\n",
				ghProp(a.Path), a.StartLine, a.EndLine, ghProp("gloss: stale memory ("+a.Status+")"), ghData(msg))
		}
	}
	for _, p := range res.Problems {
		line := p.Line
		if line == 0 {
			line = 1
		}
		fmt.Fprintf(w, "::warning file=%s,line=%d,title=%s::%s\n", ghProp(p.Path), line, ghProp("gloss: memory file not loaded"), ghData(p.Message))
	}
	fmt.Fprintf(w, "gloss: %s, %d stale, %d memory file problems\n", plural(len(res.Memories), "memory", "memories"), res.Stale, len(res.Problems))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// ghData escapes the message of a workflow command.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProp escapes a property value of a workflow command.
func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
