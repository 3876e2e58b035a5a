package rankeval

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blugelabs/bluge/analysis/lang/en"

	"github.com/gloss-dev/gloss/embed"
	"github.com/gloss-dev/gloss/internal/ident"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/scip"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// floors are the scores each ranker must keep per query kind: today's
// values (rounded down), never targets not yet met. Raise them when a
// ranker improves.
var floors = map[string]map[string]Metrics{
	"bm25": {
		KindIdentifier: {RecallAt5: 0.95, MRRAt10: 0.89},
		KindTask:       {RecallAt5: 0.66, MRRAt10: 0.71},
	},
	// With the general-domain prior (embed.Prior): identifiers and
	// paraphrases up from 0.865 and 0.115, tasks up from 0.354.
	"vector": {
		KindIdentifier: {RecallAt5: 0.89, MRRAt10: 0.88},
		KindParaphrase: {RecallAt5: 0.26, MRRAt10: 0.18},
		KindTask:       {RecallAt5: 0.59, MRRAt10: 0.67},
	},
	// Issue #15 asks fused recall@5 >= 0.9 on every kind; identifiers
	// meet it, paraphrases and tasks do not yet (docs/eval.md). The
	// text ranker's weight by query coverage (memory.TextWeightScale)
	// raised paraphrases from 0.077 / 0.032 and task MRR@10 from 0.783;
	// RRF k 20 (memory.BuiltinRRFK) paraphrases from 0.154 / 0.065.
	"fused": {
		KindIdentifier: {RecallAt5: 0.98, MRRAt10: 0.96},
		KindParaphrase: {RecallAt5: 0.19, MRRAt10: 0.08},
		KindTask:       {RecallAt5: 0.80, MRRAt10: 0.80},
	},
}

// fixture is the golden set loaded into a workspace.
type fixture struct {
	w       *memory.Workspace
	queries []Query
	keyOf   map[string]string         // memory id → key
	byKey   map[string]*memory.Memory // key → memory
}

// loadFixture copies testdata/repo into a new hermetic git repository,
// indexes it and remembers every memory of testdata/memories.txt through
// Workspace.RememberBatch (the path of `gloss remember --batch`). embedder
// is the vector index's embedder (memory.Options.Embedder, embed.ParseSpec
// syntax); the golden files are those of "builtin", whatever
// $GLOSS_EMBEDDER says. $GLOSS_FUSION is cleared.
func loadFixture(t *testing.T, embedder string) *fixture {
	t.Helper()
	home := testutil.Hermetic(t)
	t.Setenv(memory.FusionEnvVar, "") // each embedder's own profile (FusedWith overrides it)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, readTree(t, filepath.Join("testdata", "repo")))
	testutil.Commit(t, repo, "fixture")
	// A pinned clock: confidence decays with the time since a memory was
	// written, at a rate per type, so on a loaded machine (seconds between
	// RememberBatch and the queries) near-equal fused scores could swap.
	now := func() time.Time { return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) }
	w, err := memory.Open(repo, memory.Options{Home: home, Now: now, Embedder: embedder})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	specs := parseFile(t, "memories.txt", ParseMemories)
	reqs := make([]memory.RememberRequest, len(specs))
	for i, s := range specs {
		if reqs[i], err = s.Request(repo); err != nil {
			t.Fatal(err)
		}
	}
	mems, errs := w.RememberBatch(ctx, reqs)
	f := &fixture{w: w, queries: parseFile(t, "queries.txt", ParseQueries), keyOf: map[string]string{}, byKey: map[string]*memory.Memory{}}
	for i, s := range specs {
		if errs[i] != nil {
			t.Errorf("memory %s (memories.txt:%d): %v", s.Key, s.Line, errs[i])
			continue
		}
		f.keyOf[mems[i].ID], f.byKey[s.Key] = s.Key, mems[i]
	}
	if t.Failed() {
		t.FailNow()
	}
	return f
}

func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func parseFile[T any](t *testing.T, name string, parse func(r io.Reader) ([]T, error)) []T {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	out, err := parse(fh)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// evaluate runs every ranker of Rankers over the queries.
func (f *fixture) evaluate(t *testing.T) ([]string, map[string][]Result, map[string]map[string]Metrics) {
	t.Helper()
	var names []string
	results := map[string][]Result{}
	metrics := map[string]map[string]Metrics{}
	for _, r := range Rankers {
		res, err := Run(context.Background(), f.w, r.Rank, f.queries, f.keyOf)
		if err != nil {
			t.Fatalf("ranker %s: %v", r.Name, err)
		}
		names = append(names, r.Name)
		results[r.Name], metrics[r.Name] = res, Summarize(res)
	}
	return names, results, metrics
}

// TestRanking checks the golden set itself (relevant keys exist, at least
// 200 memories and 20 queries per kind, paraphrases share no content word
// with their targets), compares each ranker's top 10 per query and the
// summary table with the golden files (rewritten with -update), and
// asserts the floors.
func TestRanking(t *testing.T) {
	f := loadFixture(t, "builtin")
	if len(f.byKey) < 200 {
		t.Errorf("%d memories, want at least 200", len(f.byKey))
	}
	perKind := map[string]int{}
	for _, q := range f.queries {
		perKind[q.Kind]++
		for _, k := range q.Relevant {
			if f.byKey[k] == nil {
				t.Errorf("query %q: unknown memory key %s", q.Text, k)
			}
		}
	}
	for _, k := range Kinds {
		if perKind[k] < 20 {
			t.Errorf("%d %s queries, want at least 20", perKind[k], k)
		}
	}
	f.checkParaphrases(t)
	names, results, metrics := f.evaluate(t)
	for _, n := range names {
		compareGolden(t, n+".txt", Golden(results[n]))
	}
	// The daemon's text ranker (the in-memory BM25 index, WarmText) must
	// score the golden set as well as Bluge does in a CLI process. Not
	// the same lists: Bluge's merged segments carry other field
	// statistics than its new ones (ice v1.0.0 merge.go: a field's total
	// length becomes a running sum of document frequencies, and a field
	// with no token no longer counts as present), so its ranking depends
	// on its merge history, which the in-memory index does not reproduce
	// (index/bm25's doc; TestBM25MatchesBluge checks equality on
	// unmerged segments).
	if err := f.w.WarmText(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, _, warm := f.evaluate(t)
	if got := Table(names, warm); got != Table(names, metrics) {
		t.Errorf("metrics with the in-memory BM25 index:\n%s\nwith Bluge:\n%s", got, Table(names, metrics))
	}
	table := Table(names, metrics)
	compareGolden(t, "summary.md", table)
	t.Logf("ranking golden set (%d memories, %d queries):\n%s", len(f.byKey), len(f.queries), table)
	for ranker, kinds := range floors {
		for kind, floor := range kinds {
			got := metrics[ranker][kind]
			if got.RecallAt5 < floor.RecallAt5 || got.MRRAt10 < floor.MRRAt10 {
				t.Errorf("%s on %s queries: recall@5 %.3f, MRR@10 %.3f; floors %.3f, %.3f", ranker, kind, got.RecallAt5, got.MRRAt10, floor.RecallAt5, floor.MRRAt10)
			}
		}
	}
}

// reportEmbedderEnv selects the embedder of TestRankingReport (embed.ParseSpec
// syntax, e.g. model2vec:/path/to/dir); unset means the built-in model.
const reportEmbedderEnv = "GLOSS_RANKEVAL_EMBEDDER"

// reportFixture loads the fixture with the embedder named by
// $GLOSS_RANKEVAL_EMBEDDER (default builtin) and, for a remote embedder,
// waits up to 10 minutes for its background vector index; it returns the
// fixture and the embedder's name.
func reportFixture(t *testing.T) (*fixture, string) {
	t.Helper()
	embedder := os.Getenv(reportEmbedderEnv)
	if embedder == "" {
		embedder = "builtin"
	}
	f := loadFixture(t, embedder)
	if spec, err := embed.ParseSpec(embedder); err == nil && spec.Remote() {
		f.waitVectors(t, 10*time.Minute)
	}
	return f, embedder
}

// TestRankingReport prints the summary table as Markdown for docs/eval.md
// (go test ./internal/rankeval -run TestRankingReport -v), with the
// embedder named by $GLOSS_RANKEVAL_EMBEDDER (default builtin).
func TestRankingReport(t *testing.T) {
	if !testing.Verbose() {
		t.Skip("prints a report; run with -v")
	}
	f, embedder := reportFixture(t)
	if os.Getenv("GLOSS_RANKEVAL_WARM") != "" { // the daemon's text ranker (WarmText)
		if err := f.w.WarmText(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	names, results, metrics := f.evaluate(t)
	fmt.Printf("\nembedder %s\n%d memories, %d queries (%s)\n\n%s\n", embedder, len(f.byKey), len(f.queries), kindCounts(f.queries), Table(names, metrics))
	// Halves of every kind: hyper-parameters of the rankers and of
	// fusion are chosen on "tune" only; "heldout" shows whether the
	// choice generalises.
	split := map[string]map[string]Metrics{}
	for _, n := range names {
		split[n] = map[string]Metrics{}
		for _, k := range Kinds {
			tune, held := SplitHalves(results[n], k)
			split[n][k+"-tune"], split[n][k+"-heldout"] = Summarize(tune)[k], Summarize(held)[k]
		}
	}
	fmt.Printf("%s\n", Table(names, split))
}

// waitVectors waits until the vector index holds every memory of the
// fixture: a remote embedder's index is rebuilt in the background. A
// memory counts once it is among the hits (cosine > 0) of any of a few
// unrelated probe texts; it fails after timeout.
func (f *fixture) waitVectors(t *testing.T, timeout time.Duration) {
	t.Helper()
	ctx := context.Background()
	probes := []string{"readiness probe", "code", "why does this fail", "a note about the database"}
	for deadline := time.Now().Add(timeout); ; time.Sleep(200 * time.Millisecond) {
		seen := map[string]bool{}
		for _, p := range probes {
			hits, err := f.w.VectorSearch(ctx, p, memory.MaxSearchLimit)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				seen[h.ID] = true
			}
		}
		if len(seen) >= len(f.byKey) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("vector index holds %d of %d memories after %s", len(seen), len(f.byKey), timeout)
		}
	}
}

func kindCounts(qs []Query) string {
	n := map[string]int{}
	for _, q := range qs {
		n[q.Kind]++
	}
	var parts []string
	for _, k := range Kinds {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/rankeval -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the ranking; if the change is intended, run go test ./internal/rankeval -update and review the diff\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first differing line of two texts with its number.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, w, g)
		}
	}
	return ""
}

// checkParaphrases fails for a paraphrase query that shares a content word
// with a target memory: after identifier splitting and the English
// analysis of the full-text index (stop words removed, stemmed), the
// query's terms must be disjoint from those of every field the memory
// contributes to the index (title, body, tags, type, anchored symbol names
// and paths; the anchored code is the code's text, not the memory's).
func (f *fixture) checkParaphrases(t *testing.T) {
	t.Helper()
	for _, q := range f.queries {
		if q.Kind != KindParaphrase {
			continue
		}
		qw := contentWords(q.Text)
		if len(qw) == 0 {
			t.Errorf("paraphrase %q has no content word", q.Text)
		}
		for _, k := range q.Relevant {
			m := f.byKey[k]
			if m == nil {
				continue
			}
			mw := contentWords(memoryText(m))
			var shared []string
			for w := range qw {
				if mw[w] {
					shared = append(shared, w)
				}
			}
			if len(shared) > 0 {
				sort.Strings(shared)
				t.Errorf("paraphrase %q shares %v with its target %s", q.Text, shared, k)
			}
		}
	}
}

func memoryText(m *memory.Memory) string {
	parts := []string{m.Title, m.Body, strings.Join(m.Tags, " "), m.Type}
	for _, a := range m.Anchors {
		parts = append(parts, a.Path)
		if p, err := scip.Parse(a.Symbol); err == nil {
			for _, d := range p.Descriptors {
				parts = append(parts, d.Name)
			}
		}
	}
	return strings.Join(parts, " ")
}

var english = en.NewAnalyzer()

// contentWords returns the index terms of text and of its identifiers
// split into words.
func contentWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, tok := range english.Analyze([]byte(text + " " + ident.Split(text))) {
		out[string(tok.Term)] = true
	}
	return out
}

// TestFusionProfileReport prints fused recall@5 / MRR@10 on the tuning and
// held-out halves of every kind for a grid of fusion profiles (RRF k,
// coverage of full text weight, vector weight) with the embedder named by
// $GLOSS_RANKEVAL_EMBEDDER, for choosing a profile on the tuning halves
// (go test ./internal/rankeval -run TestFusionProfileReport -v).
func TestFusionProfileReport(t *testing.T) {
	if !testing.Verbose() {
		t.Skip("prints a report; run with -v")
	}
	f, embedder := reportFixture(t)
	var b strings.Builder
	fmt.Fprintf(&b, "\nembedder %s; fused recall@5 / MRR@10, tune | held-out\n\n| k | c_full | vector | identifier | paraphrase | task |\n| ---: | ---: | ---: | --- | --- | --- |\n", embedder)
	for _, k := range []int{5, 10, 20, 40, 60} {
		for _, cf := range []float64{1.0 / 3, 0.5, 2.0 / 3, 1} {
			for _, vw := range []float64{0.25, 0.5, 0.75, 1, 1.5, 2} {
				p := memory.FusionProfile{Name: "sweep", RRFK: k, CoverageFull: cf, VectorWeight: vw}
				res, err := Run(context.Background(), f.w, FusedWith(p), f.queries, f.keyOf)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "| %d | %.2f | %.2f |", k, cf, vw)
				for _, kind := range Kinds {
					tune, held := SplitHalves(res, kind)
					mt, mh := Summarize(tune)[kind], Summarize(held)[kind]
					fmt.Fprintf(&b, " %.3f / %.3f \\| %.3f / %.3f |", mt.RecallAt5, mt.MRRAt10, mh.RecallAt5, mh.MRRAt10)
				}
				b.WriteString("\n")
			}
		}
	}
	fmt.Print(b.String())
}
