package embed

import (
	"context"
	"errors"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// topicUnits is a small corpus of identifiers and doc comments on a few
// topics, each topic using several words for one idea, as code does.
func topicUnits() iter.Seq[Unit] {
	units := []Unit{
		{"maxRetries", "maxRetries caps the number of attempts before the client gives up; the upstream throttles bursts"},
		{"retryLimit", "retry limit: maximum attempts when the server is throttling requests"},
		{"backoffRetry", "backoff between retry attempts, capped at the maximum delay"},
		{"RetryPolicy", "RetryPolicy caps retries and throttles attempts"},
		{"attemptCount", "number of attempts made so far, at most maxRetries"},
		{"rateLimiter", "rate limiter throttling bursts of requests to the upstream"},
		{"openDatabase", "open the database connection pool and run migrations"},
		{"DBPool", "database connection pool: connections are reused by queries"},
		{"runMigrations", "run schema migrations on the database before queries"},
		{"queryRows", "query rows from the database through a pooled connection"},
		{"renderTemplate", "render the HTML template with the page data"},
		{"templateCache", "cache of parsed HTML templates for rendering pages"},
		{"parseTemplate", "parse an HTML template file into the cache"},
		{"writePage", "write the rendered page to the HTTP response"},
	}
	return func(yield func(Unit) bool) {
		for r := 0; r < 3; r++ { // repeat so that every word passes MinCount
			for _, u := range units {
				if !yield(u) {
					return
				}
			}
		}
	}
}

func trainTopics(t *testing.T) *Builtin {
	t.Helper()
	b, err := TrainBuiltin(context.Background(), topicUnits(), TrainOptions{Dim: 16, NoPrior: true})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cos(a, b []float32) float32 { return dot(a, b) }

func TestBuiltinParaphrase(t *testing.T) {
	b := trainTopics(t)
	q := b.EmbedText("maximum attempts throttling")
	target := b.EmbedText("Retry caps: give up after three tries")
	others := []string{"database connection pool", "render HTML pages from templates"}
	ct := cos(q, target)
	for _, o := range others {
		if co := cos(q, b.EmbedText(o)); co >= ct {
			t.Errorf("cos(query, %q) = %.3f ≥ cos(query, retry note) = %.3f", o, co, ct)
		}
	}
	if ct < 0.5 {
		t.Errorf("cos(query, retry note) = %.3f, want ≥ 0.5", ct)
	}
	// An unseen word still gets a vector through its n-grams.
	if v, _ := b.wordVector("retrying"); v == nil {
		t.Error("no subword vector for the unseen word retrying")
	}
}

func TestBuiltinDeterministicSaveLoad(t *testing.T) {
	b1, b2 := trainTopics(t), trainTopics(t)
	if b1.Model() != b2.Model() {
		t.Fatalf("two trainings on one corpus: models %s and %s", b1.Model(), b2.Model())
	}
	path := filepath.Join(t.TempDir(), "m", "builtin.model")
	if err := b1.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadBuiltin(path)
	if err != nil {
		t.Fatal(err)
	}
	if l.Model() != b1.Model() || l.Dim() != 16 || l.VocabSize() != b1.VocabSize() {
		t.Fatalf("loaded %s dim %d vocab %d, saved %s dim 16 vocab %d", l.Model(), l.Dim(), l.VocabSize(), b1.Model(), b1.VocabSize())
	}
	if !sameRows(l, b1) || !slices.Equal(l.common, b1.common) {
		t.Fatal("loaded weights differ from the saved ones") // decodeFloat32s
	}
	text := "retry attempts against a throttled upstream"
	if !slices.Equal(l.EmbedText(text), b1.EmbedText(text)) {
		t.Fatal("loaded model embeds differently")
	}
	data, _ := os.ReadFile(path)
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBuiltin(path); !errors.Is(err, ErrCorruptModel) {
		t.Fatalf("corrupt model: err %v, want ErrCorruptModel", err)
	}
	if _, err := LoadBuiltin(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing model: err %v, want not exist", err)
	}
}

func TestBuiltinEmptyCorpus(t *testing.T) {
	b, err := TrainBuiltin(context.Background(), slices.Values([]Unit{}), TrainOptions{NoPrior: true})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := b.Embed(context.Background(), []string{"anything"})
	if err != nil || len(vs) != 1 || len(vs[0]) != 128 || norm(vs[0]) != 0 {
		t.Fatalf("empty model: %v, %v; want one zero vector of 128", vs, err)
	}
}

// The n-gram buckets computed alone for the first words outside the
// vocabulary (fillSubwords) hold the same values as the whole table
// (buildSubwords): words embedded before and after the switch get the
// same vectors, bit for bit, as from a model that built the table first.
// The built-in prior (int8 rows, decoded when read) is checked too.
func TestSubwordsFilledAsBuilt(t *testing.T) {
	models := map[string]func() *Builtin{
		"workspace": func() *Builtin { return trainTopics(t) },
	}
	if len(priorBin) > 0 {
		models["prior"] = func() *Builtin {
			p, err := UnmarshalPrior(priorBin)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	words := []string{"retrying", "throttler", "pooling", "templating", "upstreams", "attempted", "connections",
		"rendered", "caps", "givesup", "xyzzyq", "databases", "htmlish", "retries", "throttled", "poolside", "renders"}
	for name, model := range models {
		lazy, table := model(), model()
		table.subFills = subwordFills // builds the whole table at its first unknown word
		for i, w := range words {
			if _, known := lazy.words.lookup(w); known {
				continue
			}
			lv, _ := lazy.wordVector(w)
			tv, _ := table.wordVector(w)
			if !slices.Equal(lv, tv) {
				t.Fatalf("%s: word %d %q: filled buckets give %v, the table %v", name, i, w, lv, tv)
			}
		}
		if lazy.sub == nil || table.sub == nil {
			t.Fatalf("%s: the whole table was not built after %d filled words", name, subwordFills)
		}
	}
}

// WarmSubwords builds the whole n-gram table of the model and of its
// prior, after which words outside the vocabulary embed as on a model
// that filled their buckets a word at a time.
func TestWarmSubwords(t *testing.T) {
	train := func() *Builtin {
		b, err := TrainBuiltin(context.Background(), topicUnits(), TrainOptions{Dim: 16})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	lazy, warm := train(), train()
	if len(priorBin) > 0 && warm.prior == nil {
		t.Fatal("no prior attached")
	}
	warm.WarmSubwords()
	for b := warm; b != nil; b = b.prior {
		if b.sub == nil || b.subPart != nil {
			t.Fatalf("model %s: table not built by WarmSubwords", b.id)
		}
	}
	n := 0
	for _, w := range []string{"retrying", "throttler", "xyzzyq", "htmlish", "poolside"} {
		if _, known := lazy.words.lookup(w); known {
			continue
		}
		n++
		lv, wv := lazy.EmbedText(w), warm.EmbedText(w)
		if !slices.Equal(lv, wv) {
			t.Fatalf("word %q: lazy %v, warmed %v", w, lv, wv)
		}
	}
	if n == 0 {
		t.Fatal("no word outside the vocabulary")
	}
	if lazy.sub != nil {
		t.Fatal("the lazy model built its table after a few words")
	}
}

// appendNgramHashes gives the buckets of the reference construction
// (build "<w>", hash each n-gram of 3 to 5 runes, 3-grams first), in the
// same order, for ASCII, multi-byte and invalid UTF-8 words and the empty
// word, also when its buffers are reused across words of other lengths.
func TestAppendNgramHashesMatchesReference(t *testing.T) {
	reference := func(w string) []uint32 {
		s := "<" + w + ">"
		var starts []int
		for i := range s {
			starts = append(starts, i)
		}
		starts = append(starts, len(s))
		runes := len(starts) - 1
		var out []uint32
		for n := 3; n <= 5; n++ {
			for i := 0; i+n <= runes; i++ {
				h := uint32(2166136261)
				for _, c := range []byte(s[starts[i]:starts[i+n]]) {
					h = (h ^ uint32(c)) * 16777619
				}
				out = append(out, h%subwordBuckets)
			}
		}
		return out
	}
	words := []string{"", "a", "ab", "abc", "retrying", "naïve", "日本語のテキスト", "\xff\xfeab", "x\x80y", "ünïcödé-wörds", "connections"}
	var hs []uint32
	var starts []int
	for _, w := range words {
		want := reference(w)
		hs, starts = appendNgramHashes(hs[:0], starts, w)
		if !slices.Equal(hs, want) {
			t.Fatalf("%q: appendNgramHashes %v, want %v", w, hs, want)
		}
		if got := ngramHashes(w); !slices.Equal(got, want) {
			t.Fatalf("%q: ngramHashes %v, want %v", w, got, want)
		}
	}
	if len(reference("abc")) == 0 || len(reference("")) != 0 {
		t.Fatal("reference construction broken")
	}
}

// BenchmarkFillSubwords is one pass of fillSubwords over the built-in
// prior's vocabulary for the buckets of one word outside it, as a CLI
// search with such a word runs (per model).
func BenchmarkFillSubwords(b *testing.B) {
	if len(priorBin) == 0 {
		b.Skip("no built-in prior")
	}
	p, err := UnmarshalPrior(priorBin)
	if err != nil {
		b.Fatal(err)
	}
	missing := map[uint32]bool{}
	for _, h := range ngramHashes("throttlerish") {
		missing[h] = true
	}
	b.ResetTimer()
	for range b.N {
		p.subPart = nil
		p.fillSubwords(missing)
	}
}

// TestBuiltinEmbedShared checks that Embed, which shares a long list of
// texts among goroutines, gives each text EmbedText's vector, bit for
// bit and in order, with and without a prior; and that a cancelled
// context fails it.
func TestBuiltinEmbedShared(t *testing.T) {
	for _, b := range []*Builtin{trainTopics(t), mustTrain(t, TrainOptions{Dim: 16})} {
		var texts []string
		for u := range topicUnits() {
			texts = append(texts, u.Head, u.Body, u.Head+" "+u.Body+" unknownword")
		}
		for len(texts) < 40*embedShare {
			texts = append(texts, texts...)
		}
		texts = texts[:40*embedShare+7]
		got, err := b.Embed(context.Background(), texts)
		if err != nil || len(got) != len(texts) {
			t.Fatalf("%d vectors, %v", len(got), err)
		}
		for i, text := range texts {
			if !slices.Equal(got[i], b.EmbedText(text)) {
				t.Fatalf("text %d %q: shared vector differs", i, text)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := b.Embed(ctx, texts); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: %v", err)
		}
	}
}

func mustTrain(t *testing.T, o TrainOptions) *Builtin {
	t.Helper()
	b, err := TrainBuiltin(context.Background(), topicUnits(), o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// EmbedText (pooled words and buffers, both models' vectors written into
// its result) gives the vectors of the reference construction: each
// model's vector of Words(text) in a slice of its own, concatenated,
// then weighed as EmbedText weighs them (weighPrior); also when the pool's scratch passes from
// text to text and from goroutine to goroutine (Embed).
func TestEmbedTextAsReference(t *testing.T) {
	ref := func(b *Builtin, text string) []float32 {
		words := Words(text)
		v := b.embedWords(words)
		if b.prior == nil {
			return v
		}
		out := append(append([]float32(nil), v...), b.prior.embedWords(words)...)
		b.weighPrior(out)
		return out
	}
	b := mustTrain(t, TrainOptions{Dim: 16}) // with the built-in prior
	if len(priorBin) > 0 && b.prior == nil {
		t.Fatal("no prior attached")
	}
	var texts []string
	for u := range topicUnits() {
		texts = append(texts, u.Head, u.Body, u.Head+" "+u.Body+" unknownword retrying_throttler", "", "the a of")
	}
	for len(texts) < 8*embedShare {
		texts = append(texts, texts...)
	}
	got, err := b.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		want := ref(b, text)
		if !slices.Equal(got[i], want) || !slices.Equal(b.EmbedText(text), want) {
			t.Fatalf("text %d %q: vector differs from the reference", i, text)
		}
	}
}
