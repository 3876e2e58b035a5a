package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// lifecycleLabels returns the labels a memory line gets after its title:
// " · superseded by ID" and " · ⚑ needs review", or "".
func lifecycleLabels(m memory.View) string {
	s := ""
	if len(m.SupersededBy) > 0 {
		s += " · superseded by " + strings.Join(m.SupersededBy, ", ")
	}
	if m.NeedsReview {
		s += " · ⚑ needs review"
		if m.ReviewReason != "" {
			s += ": " + termSafe(m.ReviewReason, false)
		}
	}
	return s
}

// relateCmd is `gloss relate ID RELATION TARGET [--remove]` (gloss.relate).
func relateCmd(g *globals) *cobra.Command {
	var remove bool
	cmd := &cobra.Command{
		Use:   "relate ID RELATION TARGET",
		Short: "Relate two memories: ID " + strings.Join(memory.RelationKinds, "|") + " TARGET",
		Long: `Relate two memories (ids or unique prefixes of at least 6 characters).
"gloss relate NEW supersedes OLD" hides OLD from hover and code lens (NEW's
hover names it) and ranks it lower in search. --remove removes the relation.
A memory cannot relate to itself, and supersedes cannot form a cycle.`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			return callVerb(cmd, g, func(ctx context.Context, b api.Interface) (api.RelateResult, error) {
				return b.Relate(ctx, api.RelateArgs{ID: args[0], Relation: args[1], Target: args[2], Remove: remove})
			}, func(out io.Writer, res api.RelateResult) error {
				verb := "now"
				if remove {
					verb = "no longer"
				}
				fmt.Fprintf(out, "%s %q %s %s %s %q\n", res.Memory.ID, termSafe(res.Memory.Title, false), verb,
					strings.ReplaceAll(args[1], "_", " "), res.Target, termSafe(res.TargetTitle, false))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&remove, "remove", false, "remove the relation instead of adding it")
	return cmd
}

// whyCmd is `gloss why SYMBOL [--mermaid]` (gloss.why).
func whyCmd(g *globals) *cobra.Command {
	var mermaid bool
	cmd := &cobra.Command{
		Use:   "why SYMBOL",
		Short: "The decisions and gotchas behind a symbol, oldest first (Markdown, or --mermaid)",
		Long: `Print the memories anchored to SYMBOL (a SCIP symbol or a unique name such as
Command.Execute) and to the definitions that contain or call it, with the
memories related to them, oldest first, as Markdown; --mermaid prints the same
as a Mermaid flowchart; --json prints both with the memories.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return callVerb(cmd, g, func(ctx context.Context, b api.Interface) (api.WhyResult, error) {
				return b.Why(ctx, api.WhyArgs{Symbol: args[0]})
			}, func(out io.Writer, res api.WhyResult) error {
				text := res.Markdown
				if mermaid {
					text = res.Mermaid
				}
				_, err := fmt.Fprint(out, termSafe(text, true))
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&mermaid, "mermaid", false, "print a Mermaid flowchart instead of Markdown")
	return cmd
}

// printRelations prints a memory's relations, one "    KIND ID" line
// each (gloss show).
func printRelations(w io.Writer, m memory.View) {
	for _, r := range m.Relations {
		fmt.Fprintf(w, "    %s %s\n", strings.ReplaceAll(r.Kind, "_", " "), r.ID)
	}
}
