package embed

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCorpusAsWords reads units into a corpus whose sequences cross
// several blocks and checks each sequence against Words: the Head's
// words, at most maxHeadWords, then the Body's, at most maxBodyWords;
// units without words are left out; counts and the total match.
func TestCorpusAsWords(t *testing.T) {
	var units []Unit
	for i := range 3000 {
		head := fmt.Sprintf("parseHeader%d readBlock", i%7)
		if i%11 == 0 {
			head = strings.Repeat("alpha beta gamma ", 12) // 36 words: cut
		}
		body := strings.Repeat(fmt.Sprintf("checksum mismatch in segment%d ", i%13), 1+i%60)
		if i%97 == 0 {
			head, body = "", "a 1 ."
		}
		units = append(units, Unit{Head: head, Body: body})
	}
	c := readCorpus(slices.Values(units))
	if len(c.blocks) < 2 {
		t.Fatalf("%d blocks: the fixture should cross a block", len(c.blocks))
	}
	counts := map[string]int{}
	var total uint64
	s := 0
	for _, u := range units {
		h := Words(u.Head)
		if len(h) > maxHeadWords {
			h = h[:maxHeadWords]
		}
		b := Words(u.Body)
		if len(b) > maxBodyWords {
			b = b[:maxBodyWords]
		}
		want := append(h, b...)
		if len(want) == 0 {
			continue
		}
		if s >= len(c.seqs) {
			t.Fatalf("corpus has %d sequences, want more", len(c.seqs))
		}
		if got := c.appendWordsOf(nil, c.seq(s)); !slices.Equal(got, want) {
			t.Fatalf("sequence %d = %q, want %q", s, got, want)
		}
		if int(c.seqs[s].head) != len(h) {
			t.Fatalf("sequence %d head = %d, want %d", s, c.seqs[s].head, len(h))
		}
		for _, w := range want {
			counts[w]++
		}
		total += uint64(len(want))
		s++
	}
	if s != len(c.seqs) || total != c.total {
		t.Fatalf("corpus: %d sequences, %d words; want %d, %d", len(c.seqs), c.total, s, total)
	}
	for id, w := range c.words {
		if c.counts[id] != counts[w] {
			t.Errorf("count of %q = %d, want %d", w, c.counts[id], counts[w])
		}
	}
}
