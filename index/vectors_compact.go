package index

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// The compact rows of a base file (format GLOSSVX3, vectors_file.go):
// every row also stored as int8 with a per-row scale — symmetric linear
// quantization, x[j] ≈ scale·c[j] with scale = max|x[j]|/127 and c[j] =
// round(x[j]/scale) — so that a search reads 196 bytes per row of 192
// dimensions instead of 768. A search scores every row from its compact
// form against an int16 quantization of the query, with a bound on the
// error of both quantizations, and computes the exact float32 cosine
// (the same vek32.Dot as before) only for the rows whose upper bound can
// reach the top limit (scanCompact); its results are therefore those of
// the exact scan of every row, not an approximation. This is the usual
// scheme of quantized candidate generation then exact re-ranking (e.g.
// Guo et al., "Accelerating Large-Scale Inference with Anisotropic
// Vector Quantization", ICML 2020, §4), with a rigorous bound in place of
// a fixed re-ranking depth. At 100,000 rows the first scan of a CLI
// process read (page-faulted in) 77 MB of float32 rows: about a quarter
// of a CLI search's CPU (docs/benchmarks.md, branches cl9 and cl10).

// compactDim returns the number of int8 values stored per compact row of
// dimension dim: dim rounded up to a multiple of 16 (dotI8's step),
// padded with zeros.
func compactDim(dim int) int { return (dim + 15) &^ 15 }

// compactStride returns the bytes of one compact row: its scale (a
// little-endian float32), then compactDim(dim) int8 values; a multiple
// of 4, so that the block after it stays 4-aligned.
func compactStride(dim int) int { return 4 + compactDim(dim) }

// maxCompactDim bounds the dimension of rows stored in compact form:
// dotI8 sums in int32, and the query's int16 range shrinks as the
// dimension grows (queryScale), below 8 bits of precision past this.
const maxCompactDim = 1 << 14

// quantizeRow writes the compact form of v into dst (compactStride(len(v))
// bytes): the scale max|v[j]|/127 as a float32, then round(v[j]/scale)
// as int8 (0 for a zero row), then zeros.
func quantizeRow(dst []byte, v []float32) {
	var m float32
	for _, x := range v {
		m = max(m, abs32(x))
	}
	scale := m / 127
	binary.LittleEndian.PutUint32(dst, math.Float32bits(scale))
	c := dst[4:compactStride(len(v))]
	clear(c)
	if scale == 0 || math.IsInf(float64(scale), 0) || math.IsNaN(float64(scale)) {
		return
	}
	for j, x := range v {
		c[j] = byte(int8(max(-127, min(127, math.Round(float64(x)/float64(scale))))))
	}
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// compactRow returns the scale and the int8 values of compact row i of
// block (stride bytes per row).
func compactRow(block []byte, i, stride int) (float32, []int8) {
	r := block[i*stride : (i+1)*stride]
	return math.Float32frombits(binary.LittleEndian.Uint32(r)), unsafe.Slice((*int8)(unsafe.Pointer(&r[4])), stride-4)
}

// compactQuery is a query vector quantized for scoring compact rows.
type compactQuery struct {
	q     []int16 // round(query[j]/scale), compactDim long
	scale float64
	// k times a row's scale bounds how far the row's compact score
	// (scale·rowScale·dotI8) can be from the exact float32 cosine
	// (vek32.Dot) of the query and the row.
	k float64
}

// newCompactQuery quantizes q (of dimension dim ≤ maxCompactDim) to int16
// values of magnitude at most qmax = min(32,767, (2³¹−1)/(127·compactDim)),
// so that dotI8 cannot overflow, and computes the error bound's factor.
//
// The bound: write a row x = x̂ + δx with x̂[j] = s·c[j] and |δx[j]| ≤ s/2
// (s the row's scale, rounding to nearest; clamping to ±127 moves a value
// by less than the float32 rounding of s, covered by the 0.1 % slack), and
// q = q̂ + δq with |δq[j]| ≤ t/2 (t the query's scale). Then
// |q·x − q̂·x̂| ≤ |q̂·δx| + |δq·x| ≤ (s/2)·‖q̂‖₁ + (t/2)·‖x‖₁, and
// ‖x‖₁ ≤ dim·max|x[j]| ≤ dim·127.5·s. The exact score is vek32.Dot's
// float32 sum, within dim·2⁻²³·Σ|q[j]|·|x[j]| ≤ dim·2⁻²³·‖q‖₁·127.5·s of
// q·x (Higham, "Accuracy and Stability of Numerical Algorithms", §3.1,
// with room for a non-sequential summation). All three terms are
// proportional to s: k is their sum divided by s, with 0.1 % slack.
func newCompactQuery(q []float32) compactQuery {
	cdim := compactDim(len(q))
	qmax := min(32767, (math.MaxInt32)/(127*cdim))
	var m float64
	for _, x := range q {
		m = max(m, math.Abs(float64(x)))
	}
	cq := compactQuery{q: make([]int16, cdim)}
	if m == 0 {
		return cq
	}
	cq.scale = m / float64(qmax)
	var l1hat, l1 float64
	for j, x := range q {
		c := max(-float64(qmax), min(float64(qmax), math.Round(float64(x)/cq.scale)))
		cq.q[j] = int16(c)
		l1hat += math.Abs(c) * cq.scale
		l1 += math.Abs(float64(x))
	}
	dim := float64(len(q))
	quant := 0.5*l1hat + 0.5*cq.scale*dim*127.5
	rounding := dim * 0x1p-23 * l1 * 127.5
	cq.k = (quant + rounding) * 1.001
	return cq
}

// negInf and posInf are −∞ and +∞.
var negInf, posInf = math.Inf(-1), math.Inf(1)

// boundsDot returns the lower and upper bound of the exact cosine of the
// query and a row of compact scale s whose int8 values c give d =
// dotI8(cq.q, c) (computed a block of rows at a time, dotI8Block); a row
// whose scale is not finite has no compact form and is always scored
// exactly, whatever d.
func (cq *compactQuery) boundsDot(s float32, d int32) (lo, hi float64) {
	sf := float64(s)
	if sf-sf != 0 { // NaN or ±Inf (tests and infinities kept cheap, so that this inlines)
		return negInf, posInf
	}
	a := cq.scale * sf * float64(d)
	e := cq.k*sf + 1e-9
	return a - e, a + e
}

// dotI8BlockGo is dotI8Block in Go (dotI8Go per row), for CPUs without
// AVX2 and other architectures, and the reference of the assembly's
// tests.
func dotI8BlockGo(q []int16, block []byte, stride int, out []int32) {
	for r := range out {
		_, c := compactRow(block, r, stride)
		out[r] = dotI8Go(q, c)
	}
}

// dotI8Go is dotI8 in Go, for CPUs without AVX2 and other
// architectures, and the reference of the assembly's tests.
func dotI8Go(q []int16, x []int8) int32 {
	x = x[:len(q)]
	var s0, s1, s2, s3 int32
	j := 0
	for ; j+4 <= len(q); j += 4 {
		s0 += int32(q[j]) * int32(x[j])
		s1 += int32(q[j+1]) * int32(x[j+1])
		s2 += int32(q[j+2]) * int32(x[j+2])
		s3 += int32(q[j+3]) * int32(x[j+3])
	}
	for ; j < len(q); j++ {
		s0 += int32(q[j]) * int32(x[j])
	}
	return s0 + s1 + s2 + s3
}
