package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// benchRepo writes files×funcs Go functions and returns the repo and the
// remember requests anchoring one memory to each function.
func benchRepo(b *testing.B, files, funcs int) (string, []memory.RememberRequest) {
	repo := testutil.InitRepo(b)
	all := map[string]string{"go.mod": "module example.com/bench\n"}
	var reqs []memory.RememberRequest
	for f := 0; f < files; f++ {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package p%d\n", f%20)
		line := 1
		for k := 0; k < funcs; k++ {
			fmt.Fprintf(&sb, "\n// F%d_%d does work.\nfunc F%d_%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b + %d\n\t}\n\treturn b - a\n}\n", f, k, f, k, k)
			start := line + 3
			line += 8
			path := fmt.Sprintf("p%d/f%d.go", f%20, f)
			reqs = append(reqs, memory.RememberRequest{Text: fmt.Sprintf("memory %d on F%d_%d", len(reqs), f, k), Path: path, StartLine: start, EndLine: start + 5})
		}
		all[fmt.Sprintf("p%d/f%d.go", f%20, f)] = sb.String()
	}
	testutil.WriteFiles(b, repo, all)
	testutil.Commit(b, repo, "bench")
	for i := range reqs {
		reqs[i].Path = filepath.Join(repo, reqs[i].Path)
	}
	return repo, reqs
}

// benchWorkspace opens an indexed 200-file workspace with one memory on
// each of its 10,000 functions.
func benchWorkspace(b *testing.B) (*memory.Workspace, string, []memory.RememberRequest) {
	testutil.Hermetic(b)
	repo, reqs := benchRepo(b, 200, 50)
	ctx := context.Background()
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Index(ctx); err != nil {
		b.Fatal(err)
	}
	if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil {
		b.Fatal(errs[0])
	}
	return w, repo, reqs
}

// BenchmarkCheckUnchanged10k measures `gloss check` (rescan + resolution +
// listing) on a workspace with 10,000 memories when nothing changed.
// Target: under 2 s per check (issue #2).
func BenchmarkCheckUnchanged10k(b *testing.B) {
	w, _, reqs := benchWorkspace(b)
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Check(ctx); err != nil { // settle racy-clean files
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := w.Check(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Memories) != len(reqs) || res.Resolved != 0 {
			b.Fatalf("check: %d memories, %d resolved", len(res.Memories), res.Resolved)
		}
	}
}

// BenchmarkCheckOneFileChanged10k: one file of 50 anchored functions
// changed (every function shifted by an inserted line), 10,000 memories.
func BenchmarkCheckOneFileChanged10k(b *testing.B) {
	w, repo, _ := benchWorkspace(b)
	defer w.Close()
	ctx := context.Background()
	path := "p0/f0.go"
	orig := testutil.Git(b, repo, "show", "HEAD:"+path)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		testutil.WriteFiles(b, repo, map[string]string{path: strings.Replace(orig, "\n", fmt.Sprintf("\n// edit %d\n", i), 1) + "\n"})
		b.StartTimer()
		res, err := w.Check(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if res.Resolved != 50 {
			b.Fatalf("resolved %d anchors, want 50", res.Resolved)
		}
	}
}
