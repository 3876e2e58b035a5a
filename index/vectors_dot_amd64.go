package index

import "golang.org/x/sys/cpu"

// dotI8AVX2 is dotI8 in AVX2 (vectors_dot_amd64.s); n is a positive
// multiple of 16.
//
//go:noescape
func dotI8AVX2(q *int16, x *int8, n int) int32

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
