package embed

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// refPPMI is the PPMI matrix of units counted the plain way: every
// co-occurrence (corpus.seqPairs) added to one map, the map's keys
// sorted, each key's count looked up again.
func refPPMI(rows []int32, c *corpus, window, n int) *csr {
	co := map[uint64]float64{}
	add := func(i, j int32) {
		if i != j {
			co[uint64(i)<<32|uint64(j)]++
			co[uint64(j)<<32|uint64(i)]++
		}
	}
	for pairs := range c.seqPairs(rows, window) {
		for _, p := range pairs {
			add(p.i, p.j)
		}
	}
	keys := make([]uint64, 0, len(co))
	rowSum := make([]float64, n)
	for k, v := range co {
		keys = append(keys, k)
		rowSum[k>>32] += v
	}
	slices.Sort(keys)
	b := newPPMIBuilder(rowSum, 0)
	for _, k := range keys {
		b.put(int(k>>32), int(uint32(k)), co[k])
	}
	return b.matrix()
}

// madeUpWord returns a made-up word for k: "zq" and k in base 26, in letters.
func madeUpWord(k uint64) string {
	b := []byte("zq")
	for ; k > 0; k /= 26 {
		b = append(b, byte('a'+k%26))
	}
	return string(b)
}

// The sharded counts, dense for the most frequent words and in maps for
// the rest, give the bits of the plain count's PPMI matrix, for a
// vocabulary larger and smaller than the dense square, on one to four
// shards.
func TestPPMISameAsPlainCount(t *testing.T) {
	for _, vocabWords := range []int{50, coDense + 700} {
		rng := rand.New(rand.NewPCG(uint64(vocabWords), 9))
		zipf := rand.NewZipf(rng, 1.1, 2, uint64(vocabWords*2))
		var units []Unit
		for range 3000 {
			var head, body []string
			for range rng.IntN(4) {
				head = append(head, madeUpWord(zipf.Uint64()))
			}
			for range rng.IntN(60) {
				body = append(body, madeUpWord(zipf.Uint64()))
			}
			units = append(units, Unit{Head: strings.Join(head, " "), Body: strings.Join(body, " ")})
		}
		c := readCorpus(slices.Values(units))
		vocab := selectVocab(c.words, c.counts, 1, vocabWords)
		rows := make([]int32, len(c.words))
		for i := range rows {
			rows[i] = -1
		}
		for i, id := range vocab {
			rows[id] = int32(i)
		}
		want := refPPMI(rows, c, 5, len(vocab))
		for _, procs := range []int{1, 2, 3, 4} {
			prev := runtime.GOMAXPROCS(procs)
			got := ppmi(cooccurrences(rows, c, 5, len(vocab)), len(vocab))
			runtime.GOMAXPROCS(prev)
			if !slices.Equal(got.rowPtr, want.rowPtr) || !slices.Equal(got.col, want.col) || len(got.val) != len(want.val) {
				t.Fatalf("vocabulary %d, %d shards: structure differs (%d entries, want %d)", len(vocab), procs, len(got.val), len(want.val))
			}
			for k := range got.val {
				if math.Float64bits(got.val[k]) != math.Float64bits(want.val[k]) {
					t.Fatalf("vocabulary %d, %d shards: entry %d = %v, want %v", len(vocab), procs, k, got.val[k], want.val[k])
				}
			}
		}
		if vocabWords > coDense && (len(vocab) <= coDense || want.rowPtr[coDense] == len(want.col)) {
			t.Fatalf("vocabulary %d: no entries past the dense square", len(vocab))
		}
	}
}
