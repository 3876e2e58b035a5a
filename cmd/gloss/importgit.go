package main

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/api"
)

// importGitCmd is `gloss import-git`: the history of the repository as
// memories (api.ImportGit).
func importGitCmd(g *globals) *cobra.Command {
	var a api.ImportGitArgs
	cmd := &cobra.Command{
		Use:   "import-git [--since DATE|REV] [--limit N] [--paths GLOB]",
		Short: "Turn the git history into memories anchored to the definitions each commit changed (run again to add new commits)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			end := withProgressBar(b, g, "commits")
			res, err := b.ImportGit(cmd.Context(), a)
			end()
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), res)
			}
			printImportGit(cmd.OutOrStdout(), res)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&a.Since, "since", "", "only commits after this date (YYYY-MM-DD) or revision")
	f.IntVar(&a.Limit, "limit", 0, "read at most this many first-parent commits, newest first (0: all)")
	f.StringVar(&a.Paths, "paths", "", "only files matching this glob (** for any directories) or below this directory")
	f.BoolVar(&a.Merges, "merges", false, "import merge commits too (their diff against the first parent)")
	f.IntVar(&a.MaxDefinitions, "max-definitions", 0, "skip commits that change more definitions than this (default 25)")
	return cmd
}

// printImportGit prints what an import did: counts, then skips by reason.
func printImportGit(w io.Writer, r api.ImportGitResult) {
	from := "all history"
	if r.Incremental {
		from = "new commits since the last import"
	}
	fmt.Fprintf(w, "%s at %.12s (%s): %d commits examined, %d memories created (%d anchors, %d stale today) in %s\n",
		r.Branch, r.Head, from, r.Commits, r.Created, r.Anchors, r.Stale, r.Elapsed.Round(time.Millisecond))
	reasons := make([]string, 0, len(r.Skipped))
	for k := range r.Skipped {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(w, "  skipped %-22s %d\n", k+":", r.Skipped[k])
	}
	if r.Unreadable > 0 {
		fmt.Fprintf(w, "  unreadable files: %d (missing from the clone, too large or not text)\n", r.Unreadable)
	}
}
