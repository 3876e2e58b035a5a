//go:build !amd64

package index

// dotI8 returns Σ q[j]·x[j] over j < len(q), exactly; len(x) ≥ len(q).
func dotI8(q []int16, x []int8) int32 { return dotI8Go(q, x) }
