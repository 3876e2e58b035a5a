package embed

import (
	"slices"
	"strconv"
	"sync"
	"testing"
)

// A model answers from its word memo with the very vectors it computes
// without one: prior rows (int8, decoded), unaligned rows (raw) and words
// outside the vocabulary (n-gram means), before and after the memo fills,
// from several goroutines at once (run with -race).
func TestWordMemoSameVectors(t *testing.T) {
	b, err := TrainBuiltin(t.Context(), topicUnits(), TrainOptions{Dim: 16})
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/builtin.model"
	if err := b.Save(path); err != nil {
		t.Fatal(err)
	}
	fresh := func() *Builtin {
		l, err := LoadBuiltin(path)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	texts := append([]string{}, embedTexts...)
	texts = append(texts, "retrying throttler pooling templating xyzzyq password credential stolen")
	for i := range 200 { // more distinct unknown words than a small memo holds
		texts = append(texts, "word"+strconv.Itoa(i)+" attempts zz"+strconv.Itoa(i*7))
	}
	want := make([][]float32, len(texts))
	for i, text := range texts {
		want[i] = fresh().EmbedText(text) // each from an empty memo
	}
	m := fresh()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 2 {
				for i := range texts {
					i := (i + g*37) % len(texts)
					if got := m.EmbedText(texts[i]); !slices.Equal(got, want[i]) {
						t.Errorf("goroutine %d round %d: %q embeds to %v, want %v", g, round, texts[i], got, want[i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if len(m.memo.at) == 0 {
		t.Fatal("the model's memo holds no word")
	}
	if m.prior != nil && len(m.prior.memo.at) == 0 {
		t.Fatal("the prior's memo holds no word")
	}
}

// A full memo adds nothing more and still answers: words past
// wordMemoMax are computed each time, to the same values.
func TestWordMemoFull(t *testing.T) {
	var m wordMemo
	const dim = 4
	for i := range wordMemoMax + 10 {
		v := []float32{float32(i), 1, 2, 3}
		got := m.put("w"+strconv.Itoa(i), v, float64(i), dim)
		if !slices.Equal(got, v) {
			t.Fatalf("put %d returned %v, want %v", i, got, v)
		}
	}
	if len(m.at) != wordMemoMax {
		t.Fatalf("memo holds %d words, want %d", len(m.at), wordMemoMax)
	}
	if v, p, ok := m.get("w5", dim); !ok || p != 5 || !slices.Equal(v, []float32{5, 1, 2, 3}) {
		t.Fatalf("get w5 = %v %v %v", v, p, ok)
	}
	if _, _, ok := m.get("w"+strconv.Itoa(wordMemoMax+1), dim); ok {
		t.Fatal("a word put into a full memo is remembered")
	}
	if m.put("none", nil, 0, dim) != nil {
		t.Fatal("put of no vector returned one")
	}
}
