package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// open opens the workspace containing g.dir (or dir when given).
func (g *globals) open(dir string) (*memory.Workspace, error) {
	if dir == "" {
		dir = g.dir
	}
	return memory.Open(dir, memory.Options{MaxFileSize: g.maxSize, Force: g.force, ReadOnly: g.readOnly, StoreCacheBytes: g.storeCache, StoreBulk: g.storeBulk, KeepBatchFiles: g.storeBulk, Warn: func(err error) {
		fmt.Fprintln(os.Stderr, "gloss: warning:", err)
	}})
}

// resolvePath interprets p relative to -C when it is relative.
func (g *globals) resolvePath(p string) string {
	if filepath.IsAbs(p) || g.dir == "." || g.dir == "" {
		return p
	}
	return filepath.Join(g.dir, p)
}

func indexCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "index [DIR]",
		Short: "Index or refresh the workspace: files, symbols per language, skipped files",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 1 {
				dir = g.resolvePath(args[0])
			}
			if dir != "" {
				g.dir = dir
			}
			defer setMemoryLimit(indexMemoryLimit)()
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			endBar := withProgressBar(b, g, "files")
			all, err := b.Index(cmd.Context(), api.NoArgs{})
			endBar()
			if err != nil {
				return err
			}
			res, err := only(all.Workspaces, g.dir)
			if err != nil {
				return err
			}
			if g.json {
				if err := printJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
				return vectorsPendingExit(cmd.ErrOrStderr(), res.VectorsPending)
			}
			st := res.Stats
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Indexed %s in %s\n", res.Root, st.Elapsed.Round(1e6))
			fmt.Fprintf(out, "  files:   %d (%s), parsed %d, unchanged %d, removed %d", st.Files, humanBytes(st.Bytes), st.Parsed, st.Unchanged, st.Removed)
			if st.ParsedBytes > 0 && st.Elapsed > 0 {
				fmt.Fprintf(out, ", %.1f MB/s", float64(st.ParsedBytes)/1e6/st.Elapsed.Seconds())
			}
			fmt.Fprintln(out)
			fmt.Fprintf(out, "  symbols: %s\n", counts(st.SymbolsByLang))
			fmt.Fprintf(out, "  by file: %s\n", counts(st.FilesByLang))
			if len(st.Skipped) > 0 {
				fmt.Fprintf(out, "  skipped: %s\n", counts(st.Skipped))
			}
			if st.ParseErrors > 0 {
				fmt.Fprintf(out, "  %d files have syntax errors (definitions outside the errors were still indexed)\n", st.ParseErrors)
			}
			printSync(out, res.MemoryFiles)
			return vectorsPendingExit(cmd.ErrOrStderr(), res.VectorsPending)
		},
	}
}

// indexMemoryLimit is the Go heap limit `gloss index` sets
// (runtime/debug.SetMemoryLimit, a soft limit: the collector runs more
// often near it, nothing fails past it) unless $GOMEMLIMIT sets one. A
// cold index holds up to ~64 MiB of records for one ingest
// (index.Store's bulk load), the trees of the files being parsed
// (index.DefaultMaxParseBytes) and the parsers: ~150–280 MiB live on
// prometheus (973 files) at GOMAXPROCS 16, which the default collector
// pacing (GOGC=100) lets grow to twice that before it collects. With
// this limit the peak resident set stays under 400 MB there
// (docs/benchmarks.md, branch rss15); a smaller repository never
// reaches it. With a daemon the index runs there, and this limit only
// bounds the CLI process.
const indexMemoryLimit = 330 << 20

// exitVectorsPending is gloss index's exit code when the files and the
// full text were indexed but the vectors could not be brought up to date
// because the remote embedder kept failing (api.VectorsPending).
const exitVectorsPending = 4

// vectorsPendingExit explains vp on w and returns the exitError of
// exitVectorsPending; nil when vp is nil.
func vectorsPendingExit(w io.Writer, vp *api.VectorsPending) error {
	if vp == nil {
		return nil
	}
	fmt.Fprintf(w, "gloss: vectors not updated: %d of %d memories wait for %s, whose server failed for %s: %s\n",
		vp.Pending, vp.Total, vp.Model, memory.ReembedForegroundGiveUp, vp.Error)
	fmt.Fprintln(w, "  searches use the previous vectors, or the full text and the symbol graph, until it answers;")
	fmt.Fprintln(w, "  run gloss index again, or a running daemon (gloss daemon) catches up in the background")
	return exitError{code: exitVectorsPending}
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, " · ")
}

// plural formats n with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// batchLine is one JSON line of `gloss remember --batch`.
type batchLine struct {
	Text   string   `json:"text"`
	At     string   `json:"at"`
	Symbol string   `json:"symbol"`
	Type   string   `json:"type"`
	Title  string   `json:"title"`
	Tags   []string `json:"tags"`
	Scope  string   `json:"scope"`
}

func rememberCmd(g *globals) *cobra.Command {
	var at, typ, title, symbol, batch, scope, source, onDuplicate, expires string
	var pinned bool
	var tags []string
	cmd := &cobra.Command{
		Use:   "remember TEXT [--at PATH:START[-END] | --symbol S] | --batch FILE",
		Short: "Remember a note about code (lines are 1-based and inclusive)",
		Long: `Remember a note about code.

If the lines cover one definition (its declaration lines, doc comment optional)
the memory is anchored to that definition's SCIP symbol and follows it when it
moves or is renamed; otherwise it is anchored to the lines as a span inside the
enclosing definition. Without --at or --symbol the memory is anchored to the
one definition its text mentions (see suggest-anchors), else stored as a
workspace-level memory with no anchor. Existing memories with nearly the same
text are reported as near-duplicates (the memory is stored all the same).
TEXT "-" reads the text from standard input.

--batch FILE ("-" for stdin) reads JSON lines {"text","at","type","title","tags"}
and with --json prints one JSON object per line, in input order, each with "id"
(or "error").`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if batch != "" && (len(args) > 0 || at != "" || symbol != "") {
				return fmt.Errorf("--batch takes no TEXT, --at or --symbol")
			}
			if batch != "" {
				g.storeCache, g.storeBulk = batchStoreCacheBytes, true
				// Set before connect so that it holds until the workspace
				// is closed: closing folds the last writes into the text
				// and vector indexes (a +80,000 batch whose close folded
				// a 12,000-document text log peaked there at 332 MiB,
				// its chunks under 285, docs/benchmarks.md).
				defer boundBatchMemory()()
			}
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			if batch != "" {
				return runBatch(cmd, g, b, batch)
			}
			text := strings.Join(args, " ")
			if text == "-" {
				data, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return err
				}
				text = string(data)
			}
			if strings.TrimSpace(text) == "" {
				return fmt.Errorf("missing TEXT: gloss remember \"note\" --at PATH:START-END")
			}
			req := api.RememberArgs{Text: text, Type: typ, Title: title, Tags: tags, Symbol: symbol, Scope: scope, Source: source, Expires: expires, Pinned: pinned}
			req.OnDuplicate = onDuplicate
			if req.Location, err = g.atLocation(at); err != nil {
				return err
			}
			m, err := b.Remember(cmd.Context(), req)
			if err != nil {
				return err
			}
			return printRemembered(cmd, g, m)
		},
	}
	f := cmd.Flags()
	f.StringVar(&at, "at", "", "PATH:START[-END], 1-based inclusive lines")
	f.StringVar(&symbol, "symbol", "", "anchor to a definition by SCIP symbol or unique name (Name, Type.Method)")
	f.StringVar(&typ, "type", "note", "memory type: "+strings.Join(memory.Types, ", "))
	f.StringVar(&title, "title", "", "title (≤ 60 characters; default: first line of TEXT)")
	f.StringArrayVar(&tags, "tag", nil, "tag (repeatable)")
	f.StringVar(&scope, "scope", "personal", "personal or project")
	f.StringVar(&source, "source", "user", "user, agent, imported_git, imported_file or inferred")
	f.StringVar(&batch, "batch", "", "read JSON lines from FILE (- for stdin)")
	f.StringVar(&onDuplicate, "on-duplicate", "", "when a near-duplicate is on the same anchor: "+strings.Join(memory.OnDuplicatePolicies, ", ")+" (default add: store and report it)")
	f.StringVar(&expires, "expires", "", "expire the memory after a duration (30d, 2w, 36h) or on a date (2026-12-31); prune removes it")
	f.BoolVar(&pinned, "pinned", false, "the memory never loses confidence with age")
	return cmd
}

// atLocation turns --at PATH:START[-END] into a command's location; with
// no --at the location is empty (a --symbol places the memory, or gloss
// does: see api.RememberArgs).
func (g *globals) atLocation(at string) (api.Location, error) {
	if at == "" {
		return api.Location{}, nil
	}
	p, s, e, err := parseLocation(at)
	if err != nil {
		return api.Location{}, err
	}
	if s == 0 {
		return api.Location{}, fmt.Errorf("--at needs lines: PATH:START[-END]")
	}
	return g.location(p, s, e)
}

// printRemembered prints a new memory and its anchors (JSON with --json).
func printRemembered(cmd *cobra.Command, g *globals, m memory.View) error {
	if g.json {
		return printJSON(cmd.OutOrStdout(), m)
	}
	verb := "Remembered"
	if d := m.Decision; d != nil && d.Action == memory.DecisionNoop {
		verb = "Not stored; already remembered as"
	} else if d != nil && d.Action == memory.DecisionUpdate {
		verb = "Merged into"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s %s %q\n", verb, m.ID, m.Title)
	for _, a := range m.Anchors {
		fmt.Fprintf(cmd.OutOrStdout(), "  %s anchor at %s", a.Kind, placeOf(a))
		if a.Symbol != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "  %s", termSafe(a.Symbol, false))
		}
		fmt.Fprintln(cmd.OutOrStdout())
	}
	if m.Placement != "" {
		fmt.Fprintf(cmd.OutOrStdout(), "  %s\n", termSafe(m.Placement, false))
	}
	for _, d := range m.NearDuplicates {
		fmt.Fprintf(cmd.OutOrStdout(), "  near-duplicate of %s %q (similarity %.2f)\n", d.ID, termSafe(d.Title, false), d.Similarity)
	}
	if d := m.Decision; d != nil && d.Action != memory.DecisionAdd {
		fmt.Fprintf(cmd.OutOrStdout(), "  %s: %s\n", d.Action, termSafe(d.Reason, false))
	}
	return nil
}

// checkStoreCacheBytes is the Pebble block cache of `gloss check`
// without a daemon (8 MiB, Pebble's own default; the store's default is
// index.StoreCacheBytes, 64 MiB): the check reads each summary once, in
// one scan, so a larger cache only kept blocks never read again, each in
// fresh memory. Nothing-changed check of 100,000 memories on prometheus:
// peak resident set 297 → 208 MiB (docs/benchmarks.md, branch ck12).
const checkStoreCacheBytes = 8 << 20

// printCheckLine prints the last line of the text check: n memories,
// how many stale (and imported from git history), the files changed and
// anchors re-resolved, and the check's elapsed time (0.1 ms steps).
func printCheckLine(out io.Writer, res api.CheckResult, n int) {
	elapsed := time.Duration(res.ElapsedMS * float64(time.Millisecond))
	history := ""
	if res.StaleImported > 0 {
		history = fmt.Sprintf(" (%d of them imported git history)", res.StaleImported)
	}
	fmt.Fprintf(out, "%s, %d stale%s · %s changed, %s re-resolved in %s\n",
		plural(n, "memory", "memories"), res.Stale, history, plural(len(res.ChangedFiles), "file", "files"),
		plural(res.Resolved, "anchor", "anchors"), elapsed.Round(1e5))
}

func checkCmd(g *globals) *cobra.Command {
	var exitCode bool
	var staleOnly bool
	var format string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Rescan the working tree and report which memories describe changed code",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.storeCache == 0 {
				g.storeCache = checkStoreCacheBytes
			}
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			if format != "text" && format != "github" {
				return fmt.Errorf("unknown --format %q (want text or github)", format)
			}
			if b.engine != nil && (format == "text" || g.json) {
				res, err := printCheckStream(cmd.Context(), cmd.OutOrStdout(), b.engine, g.json, staleOnly)
				if err != nil {
					return err
				}
				if exitCode && (res.Stale-res.StaleImported > 0 || len(res.Problems) > 0) {
					return exitError{code: 3}
				}
				return nil
			}
			res, err := b.Check(cmd.Context(), api.NoArgs{})
			if err != nil {
				return err
			}
			stale := res.Stale
			if format == "github" && !g.json {
				printGitHub(cmd.OutOrStdout(), res)
			} else if g.json {
				if err := printCheckJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			} else {
				out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
				defer out.Flush()
				for _, m := range res.Memories {
					if staleOnly && !m.Stale {
						continue
					}
					printMemory(out, m, false)
				}
				printProblems(out, res.Problems)
				printCheckLine(out, res, len(res.Memories))
			}
			// Imported git history describes older code: stale is expected.
			if exitCode && (stale-res.StaleImported > 0 || len(res.Problems) > 0) {
				return exitError{code: 3}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit with status 3 when any memory is stale or a memory file cannot be loaded (for CI and hooks); memories imported from git history never fail it")
	cmd.Flags().StringVar(&format, "format", "text", "text, or github (GitHub Actions ::warning annotations)")
	cmd.Flags().BoolVar(&staleOnly, "stale", false, "list only stale memories")
	return cmd
}

func atCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "at PATH[:LINE[-LINE]]",
		Short: "List the memories whose anchors overlap a file or lines (1-based)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, s, e, err := parseLocation(args[0])
			if err != nil {
				return err
			}
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			loc, err := g.location(p, s, e)
			if err != nil {
				return err
			}
			res, err := b.MemoriesAt(cmd.Context(), loc)
			if err != nil {
				return err
			}
			ms := res.Memories
			if g.json {
				return printJSON(cmd.OutOrStdout(), struct {
					Memories []memory.View `json:"memories"`
				}{ms})
			}
			for _, m := range ms {
				printMemory(cmd.OutOrStdout(), m, true)
				fmt.Fprintln(cmd.OutOrStdout())
			}
			if len(ms) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no memories here")
			}
			return nil
		},
	}
}

func showCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show one memory with its anchors and body",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			res, err := b.Show(cmd.Context(), api.ShowArgs{ID: args[0]})
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), res)
			}
			printMemory(cmd.OutOrStdout(), res.View, true)
			if res.Diff != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "\nwhat changed:\n%s", res.Diff)
			}
			return nil
		},
	}
}

func listCmd(g *globals) *cobra.Command {
	var args api.ListArgs
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories with their last known status (run check to refresh)",
		Long: `List memories with their last known status (run check to refresh), ordered
by their first anchor's path and line, then id; memories without anchors last.

--limit N prints one page of at most N memories; when more follow, the last
line (with --json, "next_cursor") gives the --cursor of the next page.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			if b.engine != nil && args.Limit == 0 && args.Cursor == "" {
				// Streamed: never all decoded.
				if err := args.Validate(); err != nil {
					return err
				}
				return printListStream(cmd.Context(), cmd.OutOrStdout(), b.engine, g.json, args.Keeps)
			}
			res, err := b.List(cmd.Context(), args)
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), res)
			}
			for _, m := range res.Memories {
				printMemory(cmd.OutOrStdout(), m, false)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d memories\n", len(res.Memories))
			if res.NextCursor != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "more: gloss list --limit %d --cursor %s\n", args.Limit, res.NextCursor)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&args.Stale, "stale", false, "only stale memories")
	cmd.Flags().StringVar(&args.Type, "type", "", "only memories of this type ("+strings.Join(memory.Types, ", ")+")")
	cmd.Flags().IntVar(&args.Limit, "limit", 0, "print at most this many memories (a page; 0: all)")
	cmd.Flags().StringVar(&args.Cursor, "cursor", "", "start after the page that printed this cursor")
	return cmd
}

func verifyCmd(g *globals) *cobra.Command {
	var allFresh bool
	var path string
	cmd := &cobra.Command{
		Use:   "verify ID | --all-fresh | --path GLOB",
		Short: "Accept the current code as the memory's new truth (status becomes fresh, confidence decay restarts)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if allFresh || path != "" {
				if len(args) > 0 {
					return errors.New("give a memory id, or --all-fresh / --path, not both")
				}
				return verifyMany(cmd, g, path, allFresh)
			}
			if len(args) != 1 {
				return errors.New("give one memory id, or --all-fresh / --path GLOB")
			}
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			m, err := b.Verify(cmd.Context(), api.IDArgs{ID: args[0]})
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), m)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Verified %s %q\n", m.ID, m.Title)
			printMemory(cmd.OutOrStdout(), m, false)
			return nil
		},
	}
	cmd.Flags().BoolVar(&allFresh, "all-fresh", false, "verify every memory whose anchors are all fresh or moved (with --path: under it)")
	cmd.Flags().StringVar(&path, "path", "", "verify every memory with an anchor under this path or glob (stale ones too)")
	return cmd
}

func forgetCmd(g *globals) *cobra.Command {
	var all, yes bool
	var scope string
	cmd := &cobra.Command{
		Use:   "forget ID... | --all --yes",
		Short: "Delete memories",
		RunE: func(cmd *cobra.Command, args []string) error {
			if all != (len(args) == 0) {
				return errors.New("give memory ids, or --all (with --yes) and no ids")
			}
			if all {
				return forgetAll(cmd, g, yes, scope)
			}
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			var failed error
			for _, id := range args {
				m, err := b.Forget(cmd.Context(), api.IDArgs{ID: id})
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "gloss: %v\n", err)
					failed = exitError{code: 1}
					if g.json {
						_ = printLine(cmd.OutOrStdout(), map[string]any{"id": id, "error": err.Error()})
					}
					continue
				}
				if g.json {
					_ = printLine(cmd.OutOrStdout(), map[string]any{"id": m.Forgotten, "forgotten": true})
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "Forgot %s %q\n", m.Forgotten, m.Title)
				}
			}
			return failed
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "forget every memory (of --scope), with the files of project memories")
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm --all")
	cmd.Flags().StringVar(&scope, "scope", "", "with --all: only personal or project memories")
	return cmd
}

func statusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Summarize the workspace: memories, stale memories, indexed files and symbols",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			all, err := b.Status(cmd.Context(), api.NoArgs{})
			if err != nil {
				return err
			}
			s, err := only(all.Workspaces, g.dir)
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), s)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "workspace: %s (project %s)\n", s.Root, s.ProjectID)
			fmt.Fprintf(out, "memories:  %d, %d stale", s.Memories, s.Stale)
			if s.StaleImportedGit > 0 {
				// As check says it: imported history describes older code.
				fmt.Fprintf(out, " (%d of them imported git history)", s.StaleImportedGit)
			}
			fmt.Fprintln(out)
			if s.ImportedGit > 0 {
				fmt.Fprintf(out, "imported:  %d from git history (import-git)\n", s.ImportedGit)
			}
			if len(s.ByStatus) > 0 {
				fmt.Fprintf(out, "anchors:   %s\n", counts(s.ByStatus))
			}
			fmt.Fprintf(out, "index:     %d files, %d symbols\n", s.Files, s.Symbols)
			fmt.Fprintf(out, "store:     %s\n", s.DataDir)
			if r := s.Reembedding; r != nil {
				if r.Phase == "training" {
					fmt.Fprintln(out, "vectors:   training a new built-in model (searches use the current one)")
				} else {
					fmt.Fprintf(out, "vectors:   re-embedding with %s: %d/%d memories (searches use the current model)\n", r.Model, r.Done, r.Total)
				}
				if r.Error != "" {
					fmt.Fprintf(out, "vectors:   retrying after: %s\n", termSafe(r.Error, false))
				}
			}
			if s.Vectors != "" && s.Reembedding == nil {
				fmt.Fprintf(out, "vectors:   %s\n", termSafe(s.Vectors, false))
			}
			return nil
		},
	}
}
