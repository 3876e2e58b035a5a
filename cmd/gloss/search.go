package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/timing"
	"github.com/gloss-dev/gloss/memory"
)

func searchCmd(g *globals) *cobra.Command {
	var a api.SearchArgs
	var memOnly, codeOnly bool
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search memories and code symbols (BM25, vectors, symbol graph; fused by reciprocal rank)",
		Long: `Search memories and code symbols.

Memories are ranked by full text (BM25 over title, body, tags, anchored symbols,
paths and code), by the vector index when one is configured, and by nearness in
the symbol graph to the definitions the query names (--symbol) and to --file;
code definitions by full text over their names, doc comments, paths and kinds.
The lists are fused by weighted reciprocal rank fusion (k = 60), then multiplied
by 0.75 + 0.25 × confidence and, for stale memories, by 0.85: stale memories rank
lower and are labelled STALE, never hidden. --explain prints each part of each score.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case memOnly && codeOnly:
				return fmt.Errorf("--memories-only and --code-only exclude each other")
			case memOnly:
				a.Kind = memory.ResultMemory
			case codeOnly:
				a.Kind = memory.ResultSymbol
			}
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			a.Query = strings.Join(args, " ")
			if a.File != "" { // relative to -C and this process, not the daemon's directory
				if a.File, err = filepath.Abs(g.resolvePath(a.File)); err != nil {
					return err
				}
			}
			res, err := b.Search(cmd.Context(), a)
			if err != nil {
				return err
			}
			timing.Mark("search done")
			defer timing.Mark("printed")
			if g.json {
				return printJSON(cmd.OutOrStdout(), struct {
					Results []api.SearchItem `json:"results"`
				}{res.Results})
			}
			printSearch(cmd.OutOrStdout(), res.Results)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&a.Limit, "limit", "n", 20, "maximum results")
	f.StringVar(&a.Type, "type", "", "only memories of this type")
	f.StringVar(&a.Tag, "tag", "", "only memories with this tag")
	f.StringVar(&a.Path, "path", "", "only results in paths matching this pattern (e.g. 'internal/*.go', or a directory)")
	f.StringVar(&a.Symbol, "symbol", "", "only results on this symbol (SCIP symbol or Name / Type.Method); also seeds the graph")
	f.StringVar(&a.Stale, "stale", "", "include (default), exclude or only stale memories")
	f.StringVar(&a.Superseded, "superseded", "", "include (default; ranked lower), exclude or only memories another one supersedes")
	f.Float64Var(&a.MinConfidence, "min-confidence", 0, "only memories of at least this confidence (0..1)")
	f.StringVar(&a.Kind, "kind", "", "memory or symbol: only memories or only code symbols (default both)")
	f.BoolVar(&memOnly, "memories-only", false, "only memories (--kind memory)")
	f.BoolVar(&codeOnly, "code-only", false, "only code symbols (--kind symbol)")
	f.StringVar(&a.File, "file", "", "the file at hand: memories near it in the symbol graph rank higher")
	f.BoolVar(&a.Explain, "explain", false, "print each part of each score (rank and contribution per ranker, multipliers)")
	return cmd
}

// printSearch prints fused search results (with explanations, first the
// fusion profile they were weighed by): memories as printMemory does,
// symbols as "symbol KIND NAME PATH:START-END", each after its score.
func printSearch(w io.Writer, items []api.SearchItem) {
	if len(items) > 0 && items[0].Explain != nil && items[0].Explain.Fusion != nil {
		p := items[0].Explain.Fusion
		fmt.Fprintf(w, "fusion profile %s: RRF k %d, full text weight from query coverage %.2f, vector weight %.2f\n", p.Name, p.RRFK, p.CoverageFull, p.VectorWeight)
	}
	if len(items) > 0 && items[0].Explain != nil && items[0].Explain.Vectors != "" {
		fmt.Fprintf(w, "vectors: %s\n", termSafe(items[0].Explain.Vectors, false))
	}
	for _, it := range items {
		fmt.Fprintf(w, "%.4f ", it.Score)
		if it.View != nil {
			printMemory(w, *it.View, false)
		} else if s := it.Symbol; s != nil {
			fmt.Fprintf(w, "symbol  %s %s  %s:%d-%d  %s\n", s.Kind, termSafe(s.Name, false), termSafe(s.Path, false), s.StartLine, s.EndLine, termSafe(s.Symbol, false))
		}
		if e := it.Explain; e != nil {
			for _, p := range e.Rankers {
				fmt.Fprintf(w, "    %-6s rank %-4d score %-8.4g weight %.2f → %.5f", p.Ranker, p.Rank, p.Score, p.Weight, p.Contribution)
				if p.Ranker == memory.RankerText && p.Weight < memory.RankerWeights[memory.RankerText] {
					fmt.Fprintf(w, " (weight lowered: the best text hit holds %.0f%% of the query's terms)", 100*p.Coverage)
				}
				if p.Why != "" {
					fmt.Fprintf(w, " (%s)", termSafe(p.Why, false))
				}
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "    rrf %.5f × confidence %.2f × trust %.2f × freshness %.2f = %.5f\n", e.RRF, e.Confidence, e.Trust, e.Freshness, e.Score)
		}
	}
	if len(items) == 0 {
		fmt.Fprintln(w, "no matches")
	}
}
