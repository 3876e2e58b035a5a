package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/embed"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
)

// aheadStore returns a repository indexed, with two memories, and without
// a built-in model (removed after the memories trained one), and the
// model and retraining state that training at first use gives on it
// (trainBuiltinModel, on a workspace that is then closed).
func aheadStore(t *testing.T) (repo string, model []byte, state builtinState) {
	t.Helper()
	testutil.Hermetic(t)
	repo = testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, storedFixture)
	testutil.Commit(t, repo, "fixture")
	w, err := Open(repo, Options{Embedder: "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	// Memories before the batch: the model's corpus holds them
	// (trainingUnits lists the memories), and not the batch's own.
	for _, text := range []string{"quokka pools keep connections warm", "the helper reads the wombat limit"} {
		if _, err := w.Remember(ctx, RememberRequest{Text: text, Path: repo + "/a.go", StartLine: 8, EndLine: 15, Tags: []string{"pool"}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{builtinModelFile, builtinStateFile} {
		if err := os.Remove(w.builtinPath(f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ref, err := Open(repo, Options{Embedder: "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	b, state, err := ref.trainBuiltinModel(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), builtinModelFile)
	if err := b.Save(path); err != nil {
		t.Fatal(err)
	}
	model, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return repo, model, state
}

func aheadRequests(repo string, n int) []RememberRequest {
	reqs := make([]RememberRequest, n)
	for i := range reqs {
		reqs[i] = RememberRequest{Text: fmt.Sprintf("batch note %d on the numbat pool", i), Path: repo + "/a.go", StartLine: 8 + i%2, EndLine: 15}
	}
	return reqs
}

// A batch on a store without a built-in model trains it once, beside its
// first chunk (trainAhead), and the model and state it saves are those of
// training at first use on the store as it was before the batch: for a
// small batch, whose duplicate check (checkDuplicates) takes the model
// before any write, and for a batch of two chunks, whose first commit
// takes it (its vector lane, after the first write: claimTraining), and
// the vector index then holds every memory at the store's generation. A
// batch on a store with a model trains nothing.
func TestBatchTrainsAheadOnce(t *testing.T) {
	for _, n := range []int{3, RememberChunk + 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			repo, model, state := aheadStore(t)
			var mu sync.Mutex
			var warns []error
			w, err := Open(repo, Options{Embedder: "builtin", Warn: func(err error) {
				mu.Lock()
				warns = append(warns, err)
				mu.Unlock()
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			ctx := context.Background()
			_, errs := w.RememberBatch(ctx, aheadRequests(repo, n))
			for i, err := range errs {
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
			}
			checkTrainedOnce(t, w, model, state)
			if w.vecs.ahead != nil {
				t.Fatal("a training ahead kept after the batch")
			}
			if len(warns) != 0 {
				t.Fatalf("warnings %v", warns)
			}
			// The vector index, opened by the batch's vector lane after
			// its first write (claimTraining), holds every memory at the
			// store's generation.
			v, err := w.vectorIndex(ctx)
			if err != nil || v == nil {
				t.Fatalf("vector index %v, %v", v, err)
			}
			gen, err := w.Store.MemoryGeneration()
			if err != nil {
				t.Fatal(err)
			}
			if g, known := v.Generation(); !known || g != gen {
				t.Fatalf("vector index at generation %d (%v), store at %d", g, known, gen)
			}
			stored, err := w.Store.MemoryCount()
			if err != nil {
				t.Fatal(err)
			}
			if rows, _ := v.Count(); rows != uint64(stored) || stored < n {
				t.Fatalf("vector index holds %d rows, the store %d memories (%d from the batch)", rows, stored, n)
			}
			if _, errs := w.RememberBatch(ctx, aheadRequests(repo, 2)); errs[0] != nil || errs[1] != nil {
				t.Fatal(errs)
			}
			if got := w.vecs.trainings.Load(); got != 1 {
				t.Fatalf("%d trainings after a second batch, want 1", got)
			}
		})
	}
}

// The training a batch starts ahead reads the store's memories before
// the batch's first write, however long the rest of the training takes:
// held after that read (vecs.corpusRead) until both of the batch's chunks
// are committed, it still gives the model and state of training at first
// use on the store as it was before the batch, and the batch's commits
// did not wait for the rest of it. Before, the training read the
// memories after the file records, and a first chunk committed sooner
// put its memories in the corpus.
func TestBatchAheadCorpusBeforeWrites(t *testing.T) {
	repo, model, state := aheadStore(t)
	w, err := Open(repo, Options{Embedder: "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	before, err := w.Store.MemoryCount()
	if err != nil {
		t.Fatal(err)
	}
	n := RememberChunk + 5
	committed := make(chan error, 1)
	w.vecs.corpusRead = func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			count, err := w.Store.MemoryCount()
			if err != nil || count == before+n {
				committed <- err
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		committed <- errors.New("the batch's chunks were not committed while the training waited")
	}
	_, errs := w.RememberBatch(context.Background(), aheadRequests(repo, n))
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	checkTrainedOnce(t, w, model, state)
}

// checkTrainedOnce fails t unless w trained the built-in model once and
// saved model (its file's bytes) and state, those of training at first
// use on the store as it was before the batch (aheadStore).
func checkTrainedOnce(t *testing.T, w *Workspace, model []byte, state builtinState) {
	t.Helper()
	if got := w.vecs.trainings.Load(); got != 1 {
		t.Fatalf("%d trainings, want 1", got)
	}
	got, err := os.ReadFile(w.builtinPath(builtinModelFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, model) {
		t.Fatal("the batch's model differs from the one trained on the store before it")
	}
	if s, ok := w.loadBuiltinState(); !ok || s != state {
		t.Fatalf("state %+v (%v), want %+v", s, ok, state)
	}
}

// A batch that stores nothing needs no model: the training started ahead
// is dropped and nothing is saved, as without it, and none outlives the
// batch.
func TestBatchAheadDroppedUnused(t *testing.T) {
	repo, _, _ := aheadStore(t)
	w, err := Open(repo, Options{Embedder: "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	reqs := aheadRequests(repo, RememberChunk+1)
	for i := range reqs {
		reqs[i].Text = "" // invalid
	}
	_, errs := w.RememberBatch(context.Background(), reqs)
	for i, err := range errs {
		if err == nil {
			t.Fatalf("request %d stored", i)
		}
	}
	if w.vecs.ahead != nil {
		t.Fatal("a training ahead kept after the batch")
	}
	if _, err := os.Stat(w.builtinPath(builtinModelFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("model after a batch that stored nothing: %v", err)
	}
}

// A training error surfaces once per batch: the vector lane's first
// update, which opens the vector index with the training started ahead
// (claimTraining), fails, and the batch reports it through Options.Warn
// and stores its memories (before claimTraining the opening before the
// write and the update after it each trained and failed); a small
// batch's duplicate check (checkDuplicates) warns of the same listing
// error for each request. It saves no model. The error is a
// memory record and its summary that do not decode (trainingUnits lists
// the memories from their summaries, the duplicate check from their
// records).
func TestBatchAheadTrainingError(t *testing.T) {
	for _, tc := range []struct{ n, warned int }{{2, 3}, {maxDuplicateChecks + 1, 1}} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			repo, _, _ := aheadStore(t)
			var mu sync.Mutex
			var warns []string
			w, err := Open(repo, Options{Embedder: "builtin", Warn: func(err error) {
				mu.Lock()
				warns = append(warns, err.Error())
				mu.Unlock()
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			b := w.Store.NewMemoryBatch()
			if err := b.Put("01ZZZZZZZZZZZZZZZZZZZZZZZZ", []byte("{not json"), nil, nil); err != nil {
				t.Fatal(err)
			}
			if err := b.PutSummary("01ZZZZZZZZZZZZZZZZZZZZZZZZ", []byte("\x00not a summary")); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			_, errs := w.RememberBatch(context.Background(), aheadRequests(repo, tc.n))
			for i, err := range errs {
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
			}
			failed := 0
			for _, s := range warns {
				if strings.HasPrefix(s, "vector index: list memories") || strings.HasPrefix(s, "near-duplicate check: list memories") {
					failed++
				}
			}
			if got := w.vecs.trainings.Load(); failed != tc.warned || got != 1 {
				t.Fatalf("%d trainings, %d failures warned (%q), want 1 and %d", got, failed, warns, tc.warned)
			}
			if w.vecs.ahead != nil {
				t.Fatal("a training ahead kept after the batch")
			}
			if _, err := os.Stat(w.builtinPath(builtinModelFile)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("model after a failed training: %v", err)
			}
		})
	}
}

// trainingUnits, which decodes the file records on several goroutines
// (index.Store.FilesConcurrent), gives the corpus of a sequential pass
// over Store.Files in path order, so the same model, byte for byte.
func TestTrainingUnitsConcurrentOrder(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	files := map[string]string{"go.mod": "module example.com/x\n"}
	for i := range 150 { // several chunks of FilesConcurrent
		files[fmt.Sprintf("p%d/f%03d.go", i%7, i)] = fmt.Sprintf("package p%d\n\n// Run%d runs step %d of the ledger.\nfunc Run%d() int {\n\t// carry the remainder %d\n\treturn help%d()\n}\n\nfunc help%d() int { return %d }\n", i%7, i, i, i, i, i, i, i)
	}
	testutil.WriteFiles(t, repo, files)
	testutil.Commit(t, repo, "fixture")
	w, err := Open(repo, Options{Embedder: "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Remember(ctx, RememberRequest{Text: "the ledger carries remainders", Path: repo + "/p0/f000.go", StartLine: 3, EndLine: 7}); err != nil {
		t.Fatal(err)
	}
	var want []embed.Unit
	nfiles := 0
	if err := w.Store.Files(func(rec *index.FileRecord) error {
		nfiles++
		want = append(want, w.fileUnits(rec)...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c, err := w.trainingUnits(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, n := c.units, c.files
	if c.memories != 1 {
		t.Fatalf("%d memories in the corpus, want 1", c.memories)
	}
	if n != nfiles || nfiles < 150 || len(got) != len(want)+1 || !slices.Equal(got[:len(want)], want) {
		t.Fatalf("%d files, %d units; want %d files, %d units and the memory's, in Files' order", n, len(got), nfiles, len(want))
	}
	want = append(want, got[len(want):]...) // the memory's unit
	model := func(units []embed.Unit) []byte {
		b, err := embed.TrainBuiltin(ctx, slices.Values(units), embed.TrainOptions{})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), builtinModelFile)
		if err := b.Save(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if !bytes.Equal(model(got), model(want)) {
		t.Fatal("the models of the concurrent and sequential corpora differ")
	}
}
