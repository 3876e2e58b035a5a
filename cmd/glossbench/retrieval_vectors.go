package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// vectorBuild runs `glossbench vector-build` as a child (so its CPU time
// is its own) and emits its row.
func vectorBuild(ctx context.Context, c retrievalConfig) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	load := loadAvg()
	ch, err := runChild(ctx, []string{"GLOSS_HOME=" + c.home}, false, nil, self, "vector-build", "--repo", c.repo)
	if err != nil {
		return err
	}
	var r row
	if err := json.Unmarshal(ch.stdout, &r); err != nil {
		return fmt.Errorf("vector-build output: %w", err)
	}
	r["work"], r["process_seconds"], r["process_cpu_seconds"], r["peak_rss_mib"], r["load"] = "vector_build", round(ch.seconds, 3), round(ch.cpu, 3), round(ch.rssMiB, 1), load
	emit(r)
	return nil
}

// vectorBuildMain is `glossbench vector-build --repo DIR` (GLOSS_HOME
// from the environment): it removes the workspace's vector index (the
// built-in model stays), rebuilds it from the store through the first
// vector search (the path a search takes after the index was lost), and
// prints the rebuild's wall and CPU seconds, the memories' count and the
// size of vectors.bin as one JSON object. A second search reports the
// cost of a search once built.
func vectorBuildMain(args []string) int {
	fs := flag.NewFlagSet("vector-build", flag.ContinueOnError)
	repo := fs.String("repo", "", "checkout")
	if err := fs.Parse(args); err != nil || *repo == "" {
		fmt.Fprintln(os.Stderr, "usage: glossbench vector-build --repo DIR")
		return 2
	}
	if err := vectorBuildRun(*repo); err != nil {
		fmt.Fprintln(os.Stderr, "glossbench vector-build:", err)
		return 1
	}
	return 0
}

func vectorBuildRun(repo string) error {
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		return err
	}
	defer w.Close()
	dir := filepath.Join(w.Dir, "vectors")
	for _, f := range []string{"vectors.bin", "vectors.log"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	ctx := context.Background()
	n, err := w.Store.MemoryCount()
	if err != nil {
		return err
	}
	t, cpu := time.Now(), selfCPU()
	if _, err := w.VectorSearch(ctx, "retry backoff", 20); err != nil {
		return err
	}
	build, buildCPU := time.Since(t).Seconds(), selfCPU()-cpu
	t = time.Now()
	if _, err := w.VectorSearch(ctx, "compaction snapshot", 20); err != nil {
		return err
	}
	out := row{"memories": n, "build_seconds": round(build, 3), "build_cpu_seconds": round(buildCPU, 3),
		"search_ms": round(time.Since(t).Seconds()*1000, 2), "vectors_bin_mib": fileSize(filepath.Join(dir, "vectors.bin"))}
	data, _ := json.Marshal(out)
	fmt.Println(string(data))
	return nil
}
