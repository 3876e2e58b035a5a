package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/gloss-dev/gloss/embed"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/ident"
	"github.com/gloss-dev/gloss/scip"
)

// Files of the built-in model, in the vectors directory.
const (
	builtinModelFile = "builtin.model"
	builtinStateFile = "builtin.json"
)

// builtinState is what the retraining policy remembers of the last
// training (builtin.json).
type builtinState struct {
	Model    string `json:"model"`
	Files    int    `json:"files"`    // indexed files at training
	Memories int    `json:"memories"` // memories at training
	Changed  int    `json:"changed"`  // files changed by index runs since
	// Gen is the memory generation at the last policy check: an index run
	// that changed no file and saw no memory write since reads nothing more.
	Gen uint64 `json:"gen"`
	// Deferred is set when a check's index run found retraining due but
	// left it to the next Index call.
	Deferred bool `json:"deferred,omitempty"`
}

// embedSpec returns the embedder selection: Options.Embedder, else
// $GLOSS_EMBEDDER, else the built-in model.
func (w *Workspace) embedSpec() (embed.Spec, error) {
	s := w.vecs.spec
	if s == "" {
		s = os.Getenv(embed.EnvVar)
	}
	return embed.ParseSpec(s)
}

// embedder returns the configured embedder (loaded once): the built-in
// model of this workspace (trained from the store when it has none yet),
// a model2vec directory, or a remote one; nil for "none". The caller
// holds vecs.mu.
func (w *Workspace) embedder(ctx context.Context) (embed.Embedder, error) {
	if w.vecs.emb != nil {
		return w.vecs.emb, nil
	}
	spec, err := w.embedSpec()
	if err != nil {
		return nil, err
	}
	switch spec.Kind {
	case embed.KindNone:
		w.vecs.disabled = true
		return nil, nil
	case embed.KindBuiltin:
		b, err := embed.LoadBuiltin(w.builtinPath(builtinModelFile))
		if err != nil {
			b, err = w.trainBuiltin(ctx)
		}
		if err != nil {
			return nil, err
		}
		w.vecs.emb = b
	default:
		e, err := embed.Open(spec)
		if err != nil {
			return nil, err
		}
		w.vecs.emb = e
	}
	return w.vecs.emb, nil
}

func (w *Workspace) builtinPath(name string) string {
	return filepath.Join(w.Dir, "vectors", name)
}

// trainingCorpus is what trainingUnits read of the store: the units of
// the built-in model's corpus, the number of indexed files and of
// memories they come from, and the memory generation read just before
// the memories (MemoryGeneration).
type trainingCorpus struct {
	units    []embed.Unit
	files    int
	memories int
	gen      uint64
}

// trainingUnits returns the corpus of the built-in model: per definition
// of the indexed code its name and doc comment, per function the names it
// calls, each block of other comments (commentUnits), then per memory its
// anchored symbol names and tags with its contextual text (vectorText).
// The memories are read first, and read (when not nil) is called once
// they are, before the file records and sources (~0.5 s on sympy's
// 1,603 files): a batch that started this training ahead (trainAhead)
// holds its first write until then (claimTraining), so that the corpus
// holds the memories of the store as it was before the batch and none of
// the batch's own, whenever the batch's first chunk commits. It stops
// with ctx's error when ctx ends (a training started ahead and not
// needed, trainAhead).
func (w *Workspace) trainingUnits(ctx context.Context, read func()) (trainingCorpus, error) {
	var c trainingCorpus
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return c, err
	}
	var mems []embed.Unit
	err = w.eachDocMemories(docMemoryChunk, func(ms []*Memory) error {
		for _, m := range ms {
			mems = append(mems, memoryUnit(m))
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	c.memories, c.gen = len(mems), gen
	if read != nil {
		read()
	}
	if f := w.vecs.corpusRead; f != nil {
		f()
	}
	// The file records are decoded, and their sources read, on GOMAXPROCS
	// goroutines (FilesConcurrent; JSON decoding is most of the corpus's
	// cost, 0.9 CPU-s on prometheus), each file's units kept by its
	// position, so that the corpus has Files' order and the model is the
	// one a sequential pass trains.
	var mu sync.Mutex // guards perFile
	var perFile [][]embed.Unit
	err = w.Store.FilesConcurrent(runtime.GOMAXPROCS(0), func(i int, rec *index.FileRecord) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		units := w.fileUnits(rec)
		mu.Lock()
		if i >= len(perFile) {
			perFile = slices.Grow(perFile, i+1-len(perFile))[:i+1]
		}
		perFile[i] = units
		mu.Unlock()
		return nil
	})
	if err != nil {
		return c, err
	}
	n := len(mems)
	for _, u := range perFile {
		n += len(u)
	}
	c.units = make([]embed.Unit, 0, n)
	for _, u := range perFile {
		c.units = append(c.units, u...)
	}
	c.units = append(c.units, mems...)
	c.files = len(perFile)
	return c, nil
}

// memoryUnit is the training unit of memory m: its anchors' symbol names
// and its tags as the head, its vector text (vectorText) as the body.
func memoryUnit(m *Memory) embed.Unit {
	var head []string
	for _, a := range m.Anchors {
		if p, err := scip.Parse(a.Symbol); err == nil && len(p.Descriptors) > 0 {
			head = append(head, ident.Split(p.Descriptors[len(p.Descriptors)-1].Name))
		}
	}
	head = append(head, m.Tags...)
	return embed.Unit{Head: strings.Join(head, " "), Body: vectorText(m)}
}

// fileUnits returns the units of one indexed file (see trainingUnits):
// per definition its name and doc comment, per function the names it
// calls, then its comment blocks (commentUnits) when its source reads.
func (w *Workspace) fileUnits(rec *index.FileRecord) []embed.Unit {
	var units []embed.Unit
	names := map[string]string{}
	for _, d := range rec.Defs {
		names[d.Symbol] = d.Name
		units = append(units, embed.Unit{Head: d.Name, Body: d.Doc})
	}
	calls := map[string][]string{}
	var callers []string
	for _, c := range rec.Calls {
		if _, ok := calls[c.Caller]; !ok {
			callers = append(callers, c.Caller)
		}
		calls[c.Caller] = append(calls[c.Caller], c.Name)
	}
	for _, c := range callers {
		units = append(units, embed.Unit{Head: names[c], Body: strings.Join(calls[c], " ")})
	}
	if src, err := index.ReadSourceFile(w.Root, rec.Path, w.MaxFileSize()); err == nil {
		units = append(units, commentUnits(rec, src)...)
	}
	return units
}

// commentUnits returns one unit per block of consecutive commented lines
// of src ("//" comments, "#" for Python) other than doc comments, which
// the definitions' units already hold: comments inside functions explain
// code in the words people search with.
func commentUnits(rec *index.FileRecord, src []byte) []embed.Unit {
	marker := "//"
	if rec.Lang == "python" {
		marker = "#"
	}
	doc := map[int]bool{}
	for _, d := range rec.Defs {
		for l := d.DocLine; l < d.Range.StartLine; l++ {
			doc[l] = true
		}
	}
	var units []embed.Unit
	var block []string
	flush := func() {
		if len(block) > 0 {
			units = append(units, embed.Unit{Body: strings.Join(block, " ")})
			block = block[:0]
		}
	}
	// Lines are read in src, and only comments are copied (splitting a
	// string copy of every source was 40 MB of a first batch's garbage on
	// sympy).
	mark := []byte(marker)
	for i := 0; len(src) > 0; i++ {
		line := src
		if end := bytes.IndexByte(src, '\n'); end >= 0 {
			line, src = src[:end], src[end+1:]
		} else {
			src = nil
		}
		at := commentStart(line, mark)
		if at < 0 || doc[i] {
			flush()
			continue
		}
		block = append(block, string(line[at+len(mark):]))
	}
	flush()
	return units
}

// commentStart returns the offset of the first marker of line at its
// start or after a blank (so not the "//" of "http://"), or -1.
func commentStart(line, marker []byte) int {
	for off := 0; ; {
		at := bytes.Index(line[off:], marker)
		if at < 0 {
			return -1
		}
		at += off
		if at == 0 || line[at-1] == ' ' || line[at-1] == '\t' {
			return at
		}
		off = at + len(marker)
	}
}

// trainBuiltin trains the built-in model on the workspace (see
// embed.TrainBuiltin), or takes the training a RememberBatch started
// ahead (trainAhead, takeTraining), and saves it with its state. The
// caller holds vecs.mu.
func (w *Workspace) trainBuiltin(ctx context.Context) (*embed.Builtin, error) {
	b, s, ok, err := w.takeTraining(ctx)
	if !ok {
		b, s, err = w.trainBuiltinModel(ctx, nil)
	}
	if err != nil {
		return nil, err
	}
	if err := b.Save(w.builtinPath(builtinModelFile)); err != nil {
		return nil, err
	}
	return b, w.saveBuiltinState(s)
}

// trainBuiltinModel trains the built-in model on the workspace (see
// embed.TrainBuiltin) and returns it with the retraining state to save
// with it (the files, memories and memory generation of its corpus); it
// saves nothing. read is trainingUnits'.
func (w *Workspace) trainBuiltinModel(ctx context.Context, read func()) (*embed.Builtin, builtinState, error) {
	w.vecs.trainings.Add(1)
	c, err := w.trainingUnits(ctx, read)
	if err != nil {
		return nil, builtinState{}, err
	}
	// The state is taken before the training, and c dropped, so that
	// nothing holds the units once TrainBuiltin has read its corpus from
	// them: with c read after the training, sympy's first batch kept
	// 17–20 MB more live (the largest heap after a collection 182–186
	// against 165–166 MB, GODEBUG=gctrace=1) and its collector assisted
	// ~0.2 CPU-s more, its heap being near batchMemoryLimit
	// (docs/benchmarks.md, session 26).
	state := builtinState{Files: c.files, Memories: c.memories, Gen: c.gen}
	units := c.units
	c = trainingCorpus{}
	b, err := embed.TrainBuiltin(ctx, slices.Values(units), embed.TrainOptions{})
	if err != nil {
		return nil, builtinState{}, err
	}
	state.Model = b.Model()
	return b, state, nil
}

func (w *Workspace) loadBuiltinState() (builtinState, bool) {
	var s builtinState
	data, err := os.ReadFile(w.builtinPath(builtinStateFile))
	return s, err == nil && json.Unmarshal(data, &s) == nil
}

func (w *Workspace) saveBuiltinState(s builtinState) error {
	return saveBuiltinStateIn(filepath.Join(w.Dir, "vectors"), s)
}

// saveBuiltinStateIn writes s as the state file of the vectors directory
// dir (atomically: temporary file, rename).
func saveBuiltinStateIn(dir string, s builtinState) error {
	return writeJSONAtomic(filepath.Join(dir, builtinStateFile), s)
}

// writeJSONAtomic writes v as JSON to path through a temporary file
// renamed over it, so a reader sees the old file or the new one, never a
// part (mode 0600).
func writeJSONAtomic(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", data, 0o600); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// retrainNeeded is the built-in model's retraining policy: retrain when
// there is no model, or when, since the last training, index runs changed
// at least max(20, 10%) of the files, or the number of memories moved by
// at least max(20, 10%). Smaller changes keep the model (and so every
// stored vector); words new since then get vectors from their n-grams.
func retrainNeeded(s builtinState, ok bool, files, memories int) bool {
	if !ok {
		return true
	}
	d := memories - s.Memories
	return s.Changed >= max(20, files/10) || max(d, -d) >= max(20, s.Memories/10)
}

// afterIndex keeps the built-in model current after an index run that
// changed files st.Changed (see retrainNeeded). A workspace without a
// model and without memories gets none here: the embedder trains it on
// first use. A new model replaces the
// embedder and re-embeds the vector index. Failures are reported through
// Options.Warn and never fail indexing. With retrain false an existing
// model is kept and the changes are only counted.
//
// When the configured embedder differs from the one the vector index was
// built with (pendingChange), it does nothing: IndexWith (gloss index)
// or the daemon re-embeds every memory for the new one (ReembedChanged).
func (w *Workspace) afterIndex(ctx context.Context, st index.Stats, retrain bool) {
	if _, _, _, changed := w.pendingChange(); changed {
		return
	}
	if spec, err := w.embedSpec(); err != nil || spec.Kind != embed.KindBuiltin {
		return
	}
	if err := w.refreshBuiltin(ctx, len(st.Changed), st.Files, retrain); err != nil && !errors.Is(err, context.Canceled) {
		w.warn(fmt.Errorf("built-in embedder: %w", err))
	}
}

// untrainedLazily reports whether the workspace holds no built-in model
// in memory either (w.vecs.emb): refreshBuiltin may then leave training to
// the embedder's first use.
func (w *Workspace) untrainedLazily() bool {
	w.vecs.mu.Lock()
	defer w.vecs.mu.Unlock()
	return w.vecs.emb == nil
}

func (w *Workspace) refreshBuiltin(ctx context.Context, changed, files int, retrain bool) error {
	s, ok := w.loadBuiltinState()
	if _, err := os.Stat(w.builtinPath(builtinModelFile)); err != nil {
		ok = false
	}
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return err
	}
	if ok && changed == 0 && gen == s.Gen && (!s.Deferred || !retrain) {
		return nil
	}
	s.Changed += changed
	s.Gen = gen
	memories, err := w.Store.MemoryCount()
	if err != nil {
		return err
	}
	if !ok && memories == 0 && w.untrainedLazily() {
		// No model yet and no memory to embed (a cold index of a new
		// workspace): nothing needs vectors now, so the model is trained at
		// its first use (embedder, from openVectors: a remember, search or
		// context), not on the index's critical path; until then no state
		// is saved, so every index run comes here again.
		return nil
	}
	if !retrainNeeded(s, ok, files, memories) {
		return w.saveBuiltinState(s)
	}
	if ok && !retrain {
		s.Deferred = true
		return w.saveBuiltinState(s)
	}
	return w.retrainBuiltin(ctx)
}

// RetrainDeferred does the built-in embedder's retraining that an index
// run of a write path or a check found due and deferred
// (builtinState.Deferred; IndexKeepModel): it trains a new model and
// re-embeds every memory with it beside the index in use, which searches
// keep using (with the old model) until the new model, its vectors and
// its state are swapped in at once (retrainBuiltin, reembedBeside), so
// vectors of the two models are never compared. The daemon calls it after
// its warm-up check; progress goes to WatchReembed's watchers. It does
// nothing when no retraining is deferred, the embedder is not the
// built-in one, or a retraining runs already; it returns errors of
// training or re-embedding (the old model then stays).
func (w *Workspace) RetrainDeferred(ctx context.Context) error {
	if spec, err := w.embedSpec(); err != nil || spec.Kind != embed.KindBuiltin {
		return nil
	}
	if s, ok := w.loadBuiltinState(); !ok || !s.Deferred {
		return nil
	}
	return w.retrainBuiltin(ctx)
}
