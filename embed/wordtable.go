package embed

import "hash/maphash"

// wordTable finds a vocabulary word's row: an open-addressing hash table
// with linear probing (Knuth, TAOCP vol. 3, §6.4, algorithm L) of row
// numbers over the vocabulary slice itself, so that the words are not
// copied into map keys. A loaded model builds it from its words in
// place (views of the model file, bytesString): a Go map of the 13,000
// words of a model and its prior cost a CLI search about 1.5 ms of its
// embedder load, mostly allocating and clearing the map's tables
// (pprof, docs/benchmarks.md). The table holds at least twice as many
// slots as words.
type wordTable struct {
	seed  maphash.Seed
	slots []int32 // row+1, or 0 for an empty slot; len a power of two
	vocab []string
}

// newWordTable returns the table of vocab's rows (word vocab[i] at row
// i); a word occurring twice, which a saved vocabulary never holds, has
// its last row, as in the map of word → row this replaces.
func newWordTable(vocab []string) wordTable {
	size := 16
	for size < 2*len(vocab) {
		size *= 2
	}
	t := wordTable{seed: maphash.MakeSeed(), slots: make([]int32, size), vocab: vocab}
	mask := uint64(size - 1)
	for i, w := range vocab {
		for h := maphash.String(t.seed, w) & mask; ; h = (h + 1) & mask {
			if t.slots[h] == 0 {
				t.slots[h] = int32(i + 1)
				break
			}
			if vocab[t.slots[h]-1] == w {
				t.slots[h] = int32(i + 1)
				break
			}
		}
	}
	return t
}

// lookup returns the row of word w and whether w is in the vocabulary.
func (t *wordTable) lookup(w string) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for h := maphash.String(t.seed, w) & mask; ; h = (h + 1) & mask {
		r := t.slots[h]
		if r == 0 {
			return 0, false
		}
		if t.vocab[r-1] == w {
			return r - 1, true
		}
	}
}
