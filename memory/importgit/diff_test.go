package importgit

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/myers"
)

// TestLineEditsRandom: the edits of lineEdits turn a into b for random
// line edits of a text and change as few lines as go-udiff's Myers diff
// (both are shortest edit scripts), and a change of more than
// maxEditLines lines gives none.
func TestLineEditsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var base []string
	for i := range 300 {
		base = append(base, fmt.Sprintf("line %d %d\n", i, rng.Intn(5)))
	}
	for round := range 300 {
		lines := append([]string(nil), base...)
		for range 1 + rng.Intn(12) {
			i := rng.Intn(len(lines) + 1)
			switch rng.Intn(3) {
			case 0:
				lines = append(lines[:i], append([]string{fmt.Sprintf("new %d\n", rng.Intn(4))}, lines[i:]...)...)
			case 1:
				if i < len(lines) {
					lines = append(lines[:i], lines[i+1:]...)
				}
			default:
				if i < len(lines) {
					lines[i] = "changed\n"
				}
			}
		}
		a, b := strings.Join(base, ""), strings.Join(lines, "")
		if round%2 == 1 {
			a, b = b, a+"no newline"
		}
		edits := lineEdits(a, b)
		got, err := udiff.Apply(a, edits)
		if err != nil || got != b {
			t.Fatalf("round %d: edits %v do not turn a into b (%v)", round, edits, err)
		}
		la, offsets := splitLines(a)
		lb, _ := splitLines(b)
		ungrouped, _ := diffLines(la, lb, offsets, maxEditLines)
		if n, want := changedLines(a, ungrouped), changedLines(a, myers.ComputeEdits(a, b)); n != want {
			t.Errorf("round %d: %d lines changed, go-udiff's Myers diff %d", round, n, want)
		}
	}
	var big, other strings.Builder
	for i := range maxEditLines + 10 {
		fmt.Fprintf(&big, "a%d\n", i)
		fmt.Fprintf(&other, "b%d\n", i)
	}
	if e := lineEdits("x\n"+big.String()+"y\n", "x\n"+other.String()+"y\n"); e != nil {
		t.Errorf("a rewrite of %d lines gave %d edits, want none", maxEditLines+10, len(e))
	}
}

// changedLines counts the lines of a that edits delete plus those they
// insert.
func changedLines(a string, edits []udiff.Edit) int {
	n := 0
	for _, e := range edits {
		n += strings.Count(a[e.Start:e.End], "\n") + strings.Count(e.New, "\n")
	}
	return n
}
