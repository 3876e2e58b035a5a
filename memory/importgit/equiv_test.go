package importgit

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// importOutcomes processes the newest limit first-parent commits of the
// workspace's history (oldest first, one at a time) the way a worker
// does, and returns each examined commit's outcome: its skip reason, or
// the symbols and content hashes its memory is anchored to. mode picks
// how file versions are parsed: "cached" (one parse cache for the run, as
// Run), "cold" (an empty cache for each commit: first sight everywhere),
// both with Go files parsed by index.Indexer.ParseGoFast, the same two
// with "-treesitter" appended (Go files parsed with tree-sitter:
// incrementally from the cache, ParseRegions at first sight), or "whole"
// (both versions parsed whole with tree-sitter: the reference).
func importOutcomes(t testing.TB, w *memory.Workspace, limit int, mode string) map[string]string {
	t.Helper()
	ctx := context.Background()
	opts := Options{Limit: limit, MaxDefinitions: DefaultMaxDefinitions}
	p, err := planImport(ctx, w, opts)
	if err != nil {
		t.Fatal(err)
	}
	im := &importer{w: w, plan: p, opts: opts, cache: newFileCache(), chunks: index.NewChunkMemo(chunkMemoBytes), live: newLiveCommits(ctx, w.Root, p), wholeParses: mode == "whole", noFastGo: strings.HasSuffix(mode, "-treesitter")}
	cf, err := startCatFile(ctx, w.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	ps := w.TakeParsers()
	defer w.PutParsers(ps)
	out := map[string]string{}
	seq := 0
	for k := len(p.segments) - 1; k >= 0; k-- {
		s := p.segments[k]
		revs := []string{s.head}
		if s.base != "" {
			revs = append(revs, "^"+s.base)
		}
		lr, err := startLog(ctx, w.Root, revs)
		if err != nil {
			t.Fatal(err)
		}
		for ; ; seq++ {
			c, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if reason := im.precheck(c, false); reason != "" {
				continue
			}
			if strings.HasPrefix(mode, "cold") {
				im.cache, im.chunks = newFileCache(), index.NewChunkMemo(chunkMemoBytes)
			}
			out[c.Hash] = outcome(im.process(cf, ps, importJob{seq: seq, c: c}))
		}
		lr.Close()
	}
	return out
}

// outcome describes a commit's result: the skip reason, or the sorted
// symbol@hashes:lines of the memory's anchors (content, signature and
// body hashes, first and last line).
func outcome(r commitResult) string {
	if r.err != nil {
		return "error: " + r.err.Error()
	}
	if r.mem == nil {
		return "skip " + r.skip
	}
	var as []string
	for _, a := range r.mem.Anchors {
		as = append(as, fmt.Sprintf("%s@%.8s/%.8s/%.8s:%d-%d", a.Symbol, a.ContentHash, a.SignatureHash, a.BodyHash, a.Range.StartLine, a.Range.EndLine))
	}
	sort.Strings(as)
	return strings.Join(as, "|")
}

// compareOutcomes fails for every commit whose outcome in a mode differs
// from the reference (whole parses).
func compareOutcomes(t *testing.T, w *memory.Workspace, limit int) map[string]string {
	t.Helper()
	ref := importOutcomes(t, w, limit, "whole")
	for _, mode := range []string{"cached", "cold", "cached-treesitter", "cold-treesitter"} {
		got := importOutcomes(t, w, limit, mode)
		for c, want := range ref {
			if got[c] != want {
				t.Errorf("commit %.12s, %s parses: %s\n\twhole parses: %s", c, mode, got[c], want)
			}
		}
	}
	return ref
}

// TestImportGitParsesAgree: a commit's memory does not depend on how its
// file versions were parsed (from the parse cache, by regions at first
// sight, or whole; Go files with go/parser or with tree-sitter), so a
// second run, whose cache differs because it skips the commits imported
// by the first, imports nothing new, and the fast Go parse anchors what
// tree-sitter does (a file with a syntax error falls back to tree-sitter
// in one commit and is fixed in the next). Two cases that
// made them disagree: the same content at two paths (the cache answered
// one path's parse for the other, whose symbols differ) and a symbol
// naming several definitions of a file (two init functions: the whole
// comparison matched the first with the second).
func TestImportGitParsesAgree(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	same := "package x\n\n// A says a.\nfunc A() int { return 1 }\n\n// B says b.\nfunc B() int { return 2 }\n"
	inits := "package c\n\nvar n int\n\nfunc init() { n = 1 }\n\n// F is f.\nfunc F() int { return n }\n\nfunc init() { n++ }\n"
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "a/x.go": same, "b/x.go": same, "c/c.go": inits})
	testutil.Commit(t, repo, "Add the packages")
	testutil.WriteFiles(t, repo, map[string]string{"a/x.go": strings.Replace(same, "return 1", "return 10", 1)})
	testutil.Commit(t, repo, "Make A ten")
	testutil.WriteFiles(t, repo, map[string]string{"b/x.go": strings.Replace(same, "return 2", "return 20", 1)})
	testutil.Commit(t, repo, "Make B twenty")
	testutil.WriteFiles(t, repo, map[string]string{"c/c.go": strings.Replace(inits, "return n }", "return n + 1 }", 1)})
	testutil.Commit(t, repo, "Add one in F")
	// A renamed type: its fields' symbols change, also those on lines the
	// edit does not touch.
	fields := "package d\n\nfunc use() int { return 1 }\n\n// node is a node.\ntype node struct {\n\tName string\n\tA    int\n\tB    int\n\tC    int\n}\n"
	testutil.WriteFiles(t, repo, map[string]string{"d/d.go": fields})
	testutil.Commit(t, repo, "Add node")
	testutil.WriteFiles(t, repo, map[string]string{"d/d.go": strings.ReplaceAll(fields, "node", "Node")})
	testutil.Commit(t, repo, "Export Node")
	broken := "package e\n\n// G is g.\nfunc G() int { return 1 }\n\nfunc H() int { return 2 }\n"
	testutil.WriteFiles(t, repo, map[string]string{"e/e.go": broken})
	testutil.Commit(t, repo, "Add G and H")
	testutil.WriteFiles(t, repo, map[string]string{"e/e.go": strings.Replace(broken, "return 2 }", "return 3 +  }", 1)})
	testutil.Commit(t, repo, "Break H")
	testutil.WriteFiles(t, repo, map[string]string{"e/e.go": strings.Replace(broken, "return 1 }", "return 4 }", 1)})
	testutil.Commit(t, repo, "Fix H and change G")
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ref := compareOutcomes(t, w, 0)
	short := strings.NewReplacer("scip-go gomod example.com/m . `example.com/m/", "", "`", "")
	var got []string
	for _, o := range ref {
		var names []string
		for _, a := range strings.Split(o, "|") {
			sym, _, _ := strings.Cut(a, "@")
			names = append(names, short.Replace(sym))
		}
		got = append(got, strings.Join(names, " "))
	}
	sort.Strings(got)
	want := []string{"a/A().", "a/A(). a/B(). b/A(). b/B(). c/F(). c/init(). c/init(). c/n.", "b/B().", "c/F().", "d/Node#A. d/Node#B. d/Node#C. d/Node#Name.", "d/node#A. d/node#B. d/node#C. d/node#Name. d/use().", "e/G(). e/H().", "e/G(). e/H().", "e/H()."}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("anchored definitions per commit %q, want %q", got, want)
	}
}

// TestImportGitParsesAgreeRepo is TestImportGitParsesAgree on a real
// clone: GLOSS_IMPORT_AGREE_REPO names it (skipped when unset) and
// GLOSS_IMPORT_AGREE_LIMIT the newest commits to compare (default 200).
// It parses each commit three times; the first-sight way alone is the
// cost of a fresh import of every commit.
func TestImportGitParsesAgreeRepo(t *testing.T) {
	repo := os.Getenv("GLOSS_IMPORT_AGREE_REPO")
	if repo == "" {
		t.Skip("GLOSS_IMPORT_AGREE_REPO not set")
	}
	limit := 200
	if n, err := strconv.Atoi(os.Getenv("GLOSS_IMPORT_AGREE_LIMIT")); err == nil {
		limit = n
	}
	testutil.Hermetic(t)
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ref := compareOutcomes(t, w, limit)
	t.Logf("%d commits compared", len(ref))
}
