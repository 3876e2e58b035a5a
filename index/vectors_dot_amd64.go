package index

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// dotI8AVX2 is dotI8 in AVX2 (vectors_dot_amd64.s); n is a positive
// multiple of 16.
//
//go:noescape
func dotI8AVX2(q *int16, x *int8, n int) int32

// dotI8BlockAVX2 is dotI8Block in AVX2 (vectors_dot_amd64.s): out[r] =
// Σ q[j]·x[r·stride+j] for j < n and r < rows; n is a positive multiple
// of 16 and rows positive.
//
//go:noescape
func dotI8BlockAVX2(q *int16, x *int8, n, stride, rows int, out *int32)

// hasAVX2 is whether the CPU runs dotI8AVX2.
var hasAVX2 = cpu.X86.HasAVX2

// dotI8 returns Σ q[j]·x[j] over j < len(q), exactly (int32: |q[j]| ≤
// 32,767 and |x[j]| ≤ 127 keep a sum of up to 516 terms in range);
// len(q) is a multiple of 16 (compactDim) and len(x) ≥ len(q).
func dotI8(q []int16, x []int8) int32 {
	if hasAVX2 && len(q) > 0 {
		_ = x[len(q)-1]
		return dotI8AVX2(&q[0], &x[0], len(q))
	}
	return dotI8Go(q, x)
}

// dotI8Block sets out[r] to dotI8 of q and the int8 values of compact row
// r of block (compactRow: stride bytes per row, a 4-byte scale first),
// for r < len(out), in one call (the AVX2 assembly where the CPU has
// it): a search's scan of the compact rows (compactCandidates) then pays
// no call, slicing or bounds check per row. block holds at least
// len(out) rows; len(q) is a multiple of 16 and at most stride − 4.
func dotI8Block(q []int16, block []byte, stride int, out []int32) {
	if hasAVX2 && len(q) > 0 && len(out) > 0 {
		_ = block[len(out)*stride-1]
		if len(q) > stride-4 {
			panic("index: dotI8Block: query longer than a compact row")
		}
		dotI8BlockAVX2(&q[0], (*int8)(unsafe.Pointer(&block[4])), len(q), stride, len(out), &out[0])
		return
	}
	dotI8BlockGo(q, block, stride, out)
}
