package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// lifecycleCmds are the verbs of the memory lifecycle: review and prune.
func lifecycleCmds(g *globals) []*cobra.Command {
	return []*cobra.Command{reviewCmd(g), pruneCmd(g)}
}

func reviewCmd(g *globals) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "review",
		Short: "Memories that need a look (stale, low confidence, flagged, expired, unused), each with the action to take",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return callVerb(cmd, g, func(ctx context.Context, b api.Interface) (api.ReviewResult, error) {
				return b.Review(ctx, api.ReviewArgs{Limit: limit})
			}, func(out io.Writer, res api.ReviewResult) error {
				for _, it := range res.Items {
					fmt.Fprintf(out, "%-7s gloss %s %s   # %s: %s\n", it.Action, it.Action, it.ID, it.Reason, termSafe(it.Detail, false))
					fmt.Fprintf(out, "        [%s] %s · confidence %.2f\n", termSafe(it.Type, false), termSafe(it.Title, false), it.Confidence)
				}
				if len(res.Items) == 0 {
					fmt.Fprintln(out, "nothing to review")
				}
				return nil
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "list at most this many (0: all)")
	return cmd
}

func pruneCmd(g *globals) *cobra.Command {
	var dry, yes bool
	cmd := &cobra.Command{
		Use:   "prune [--dry-run] [--yes]",
		Short: "Forget expired memories and unused ones of low confidence (restorable for 7 days)",
		Long: `Forget expired memories (remember --expires) and memories nobody read or
verified for 90 days whose confidence fell below 0.3. Pinned memories are never
pruned for disuse. Project memories (committed .gloss/memories files) are only
pruned with --yes. Each pruned memory can be restored with gloss restore ID for
7 days.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return callVerb(cmd, g, func(ctx context.Context, b api.Interface) (api.PruneResult, error) {
				return b.Prune(ctx, api.PruneArgs{DryRun: dry, Yes: yes})
			}, func(out io.Writer, res api.PruneResult) error {
				printPrune(out, res)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "list what would be pruned; forget nothing")
	cmd.Flags().BoolVar(&yes, "yes", false, "also prune project memories (deletes their committed files)")
	return cmd
}

// printPrune prints a prune result for people.
func printPrune(out io.Writer, res api.PruneResult) {
	verb := "pruned"
	if res.DryRun {
		verb = "would prune"
	}
	for _, it := range res.Items {
		what := verb
		if it.Skipped != "" {
			what = "skipped"
		}
		fmt.Fprintf(out, "%-11s %s  [%s] %s  # %s: %s", what, it.ID, termSafe(it.Type, false), termSafe(it.Title, false), it.Reason, termSafe(it.Detail, false))
		if it.Skipped != "" {
			fmt.Fprintf(out, " (%s)", termSafe(it.Skipped, false))
		}
		fmt.Fprintln(out)
	}
	if res.DryRun {
		fmt.Fprintf(out, "%d to prune (dry run)\n", len(res.Items))
		return
	}
	fmt.Fprintf(out, "%d pruned; gloss restore ID undoes one for 7 days\n", res.Pruned)
}

// verifyMany runs verify --all-fresh / --path.
func verifyMany(cmd *cobra.Command, g *globals, path string, fresh bool) error {
	return callVerb(cmd, g, func(ctx context.Context, b api.Interface) (api.VerifyAllResult, error) {
		return b.VerifyAll(ctx, api.VerifyAllArgs{Path: path, AllFresh: fresh})
	}, func(out io.Writer, res api.VerifyAllResult) error {
		for _, m := range res.Verified {
			fmt.Fprintf(out, "Verified %s %q\n", m.ID, termSafe(m.Title, false))
		}
		for _, f := range res.Failed {
			fmt.Fprintf(out, "Not verified %s: %s\n", f.ID, termSafe(f.Error, false))
		}
		fmt.Fprintf(out, "%d verified, %d not\n", len(res.Verified), len(res.Failed))
		if len(res.Failed) > 0 {
			return exitError{code: 1}
		}
		return nil
	})
}

// confidenceMark formats a view's confidence for lists.
func confidenceMark(m memory.View) string {
	return fmt.Sprintf("%.2f", m.Confidence)
}
