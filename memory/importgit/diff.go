package importgit

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// maxEditLines bounds the edit distance, in lines, of the line diff
// lineEdits computes: its trace keeps about D²/2 integers (D the
// distance), 8 MiB at this bound. A change larger than that is a rewrite,
// parsed whole.
const maxEditLines = 2000

// diffLines returns the line edits turning a into b (lines with their
// newline, as strings.SplitAfter gives them) as byte edits of the text of
// a (offsets: the byte offset of each line of a, and the end), each a run
// of deleted lines of a and the lines of b inserted in their place; ok is
// false when more than maxD lines must be deleted or inserted.
//
// The algorithm is the greedy forward search of E. W. Myers, "An O(ND)
// Difference Algorithm and Its Variations", Algorithmica 1 (1986), with
// the trace of each step's furthest reaching D-paths kept for the
// backtrack (the step d keeps the 2d+1 diagonals it reached), over line
// ids. It costs O((N+M)·D) time and O(D²) memory, unlike go-udiff's
// myers.ComputeEdits, which keeps the whole diagonal array for every step
// (O((N+M)·D) memory: gigabytes for a rewrite of a large file).
func diffLines(a, b []string, offsets []int, maxD int) ([]udiff.Edit, bool) {
	ids := map[string]int32{}
	id := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			v, ok := ids[l]
			if !ok {
				v = int32(len(ids))
				ids[l] = v
			}
			out[i] = v
		}
		return out
	}
	x0, y0 := id(a), id(b)
	n, m := len(x0), len(y0)
	maxD = min(maxD, n+m)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && x0[x] == y0[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrackEdits(trace, d, n, m, a, b, offsets), true
			}
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	return nil, false
}

// backtrackEdits walks the trace of diffLines back from (n, m) at step
// dEnd and returns the edits, in order.
func backtrackEdits(trace [][]int, dEnd, n, m int, a, b []string, offsets []int) []udiff.Edit {
	type op struct {
		x, y   int // position in a; in b for an insertion
		insert bool
	}
	var ops []op
	x, y := n, m
	for d := dEnd; d > 0; d-- {
		prev := trace[d-1] // step d-1: diagonals -(d-1)..d-1 at index k+d-1
		k := x - y
		var pk int
		if k == -d || k != d && prev[k-1+d-1] < prev[k+1+d-1] {
			pk = k + 1 // came down: an insertion of b[px-pk]
		} else {
			pk = k - 1 // came right: a deletion of a[px]
		}
		px := prev[pk+d-1]
		py := px - pk
		ops = append(ops, op{x: px, y: py, insert: pk == k+1})
		x, y = px, py
	}
	var out []udiff.Edit
	endLine := -1 // the line of a after the edit being built
	var ins strings.Builder
	flush := func() {
		if n := len(out); n > 0 {
			out[n-1].New = ins.String()
		}
		ins.Reset()
	}
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		if o.x != endLine || len(out) == 0 {
			flush()
			out = append(out, udiff.Edit{Start: offsets[o.x], End: offsets[o.x]})
			endLine = o.x
		}
		if o.insert {
			ins.WriteString(b[o.y])
		} else {
			endLine = o.x + 1
			out[len(out)-1].End = offsets[endLine]
		}
	}
	flush()
	return out
}

// splitLines splits s after each newline (no empty last line) and returns
// the byte offset of each line and the end.
func splitLines(s string) (lines []string, offsets []int) {
	lines = strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	offsets = make([]int, 0, len(lines)+1)
	total := 0
	for _, l := range lines {
		offsets = append(offsets, total)
		total += len(l)
	}
	return lines, append(offsets, total)
}
