//go:build !amd64

package index

// dotI8 returns Σ q[j]·x[j] over j < len(q), exactly; len(x) ≥ len(q).
func dotI8(q []int16, x []int8) int32 { return dotI8Go(q, x) }

// dotI8Block sets out[r] to dotI8 of q and the int8 values of compact row
// r of block (stride bytes per row), for r < len(out).
func dotI8Block(q []int16, block []byte, stride int, out []int32) {
	dotI8BlockGo(q, block, stride, out)
}
