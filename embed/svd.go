package embed

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/gloss-dev/gloss/internal/syncx"
)

// oversample is the number of extra columns of the randomized SVD's test
// matrix (Halko et al. 2011 suggest 5 to 10).
const oversample = 10

// wordVectors returns the rows of U·Σ^½ of the rank-dim randomized SVD of
// a (Halko, Martinsson & Tropp 2011, algorithms 4.4 and 5.1), each row
// L2-normalised, as one slice of a.n*dim values. Columns past the rank
// of a are zero.
func wordVectors(a *csr, dim, powerIters int) []float32 {
	out := make([]float32, a.n*dim)
	if a.n == 0 || len(a.val) == 0 {
		return out
	}
	l := min(dim+oversample, a.n)
	at := a.transpose()
	rng := rand.New(rand.NewPCG(1, 2))
	omega := mat.NewDense(a.n, l, nil)
	for i := 0; i < a.n; i++ {
		for j := 0; j < l; j++ {
			omega.Set(i, j, rng.NormFloat64())
		}
	}
	// Every product is n×l: two buffers and omega serve the whole
	// iteration (a fresh matrix per product and per orthonormalization
	// pass was 134 MB of the 1.6 GB a first 20,000-memory batch allocated
	// on sympy, pprof); each product is computed as before.
	q, free := orthonormalize(a.mulTo(mat.NewDense(a.n, l, nil), omega), omega)
	for it := 0; it < powerIters; it++ {
		var z *mat.Dense
		z, free = orthonormalize(at.mulTo(free, q), q)
		q, free = orthonormalize(a.mulTo(free, z), z)
	}
	// B = Qᵀ·A is l×n; its left singular vectors are the eigenvectors of
	// B·Bᵀ = (Aᵀ·Q)ᵀ·(Aᵀ·Q).
	bt := at.mulTo(free, q)
	g := gram(bt)
	var eig mat.EigenSym
	if !eig.Factorize(g, true) {
		return out
	}
	vals := eig.Values(nil)
	var ev mat.Dense
	eig.VectorsTo(&ev)
	u := bt       // free again: n×l, as Q·V is
	u.Mul(q, &ev) // n×l, columns in ascending eigenvalue order
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return vals[order[i]] > vals[order[j]] })
	for c := 0; c < dim && c < l; c++ {
		src := order[c]
		w := math.Pow(math.Max(vals[src], 0), 0.25) // σ^½ = (σ²)^¼
		for i := 0; i < a.n; i++ {
			out[i*dim+c] = float32(u.At(i, src) * w)
		}
	}
	for i := 0; i < a.n; i++ {
		Normalize(out[i*dim : (i+1)*dim])
	}
	return out
}

// orthonormalize returns an orthonormal basis of the columns of y by
// CholeskyQR2 (two passes of Q = Y·R⁻¹ with RᵀR = YᵀY, R upper triangular; Fukaya et al.
// 2014), with a small ridge on YᵀY so that rank-deficient inputs stay
// finite. The passes are computed in y and tmp, a matrix of y's shape
// that does not share its data: q is the one that holds the basis (y
// itself when a factorization fails), free the other.
func orthonormalize(y, tmp *mat.Dense) (q, free *mat.Dense) {
	_, l := y.Dims()
	for pass := 0; pass < 2; pass++ {
		g := gram(y)
		tr := 0.0
		for i := 0; i < l; i++ {
			tr += g.At(i, i)
		}
		ridge := 1e-12*tr/float64(l) + 1e-300
		for i := 0; i < l; i++ {
			g.SetSym(i, i, g.At(i, i)+ridge)
		}
		var ch mat.Cholesky
		if !ch.Factorize(g) {
			return y, tmp
		}
		var r, rinv mat.TriDense
		ch.UTo(&r)
		if err := rinv.InverseTri(&r); err != nil {
			return y, tmp
		}
		mulUpperTo(tmp, y, &rinv)
		y, tmp = tmp, y
	}
	return y, tmp
}

// gramBlock is the number of rows of y that gram adds to every row of
// the Gram matrix before it goes on to the next ones: 64 rows of 138
// values are 69 KiB, which stay in the core's cache while every row of
// the Gram matrix is updated from them.
const gramBlock = 64

// gram returns yᵀ·y (y n×l, the result l×l, upper triangle stored) with
// the bits of gonum's mat.SymDense.SymOuterK(1, y.T()) (BLAS Dsyrk,
// upper, transposed): entry (i, j) is the sum over the rows r of y, in
// row order, of y[r][i]·y[r][j], each term added as one multiply and one
// add (floats.AddScaled, as mulTo adds its terms; Dsyrk's AXPY kernel
// rounds the same) and rows whose y[r][i] is 0 skipped, as Dsyrk does. Two
// things differ, neither the arithmetic: Dsyrk reads all of y once per
// row of the result (138 passes over 10 MB for sympy's 9,157 words),
// gram gramBlock rows of y at a time for every row of the result; and the
// rows of the result are shared among GOMAXPROCS goroutines, row i
// with row l−1−i so that every share holds the same number of terms
// (syncx.Ranges). The randomized SVD's ten orthonormalization passes
// were its longest part, single-threaded (docs/benchmarks.md, session 25).
func gram(y *mat.Dense) *mat.SymDense {
	n, l := y.Dims()
	g := mat.NewSymDense(l, nil)
	yr, gr := y.RawMatrix(), g.RawSymmetric()
	// addRows adds rows r0 to r1 of y to row i of the result.
	addRows := func(i, r0, r1 int) {
		dst := gr.Data[i*gr.Stride+i : i*gr.Stride+l]
		for r := r0; r < r1; r++ {
			row := yr.Data[r*yr.Stride+i : r*yr.Stride+l]
			if v := row[0]; v != 0 {
				floats.AddScaled(dst, v, row)
			}
		}
	}
	_ = syncx.Ranges((l+1)/2, 1, func(lo, hi int) error {
		for r0 := 0; r0 < n; r0 += gramBlock {
			r1 := min(r0+gramBlock, n)
			for p := lo; p < hi; p++ {
				addRows(p, r0, r1)
				if q := l - 1 - p; q != p { // not the middle row of an odd l
					addRows(q, r0, r1)
				}
			}
		}
		return nil
	})
	return g
}

// mulUpperTo sets dst to y·u (y and dst n×l, distinct; u l×l upper
// triangular) with the bits of gonum's dst.Mul(y, u) (a copy of y, then
// BLAS Dtrmm from the right, which computes each row of the result from
// the same row alone), its rows shared among GOMAXPROCS goroutines
// (syncx.Ranges).
func mulUpperTo(dst, y *mat.Dense, u *mat.TriDense) {
	n, l := y.Dims()
	yr, dr, ur := y.RawMatrix(), dst.RawMatrix(), u.RawTriangular()
	_ = syncx.Ranges(n, gramBlock, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			copy(dr.Data[i*dr.Stride:i*dr.Stride+l], yr.Data[i*yr.Stride:i*yr.Stride+l])
		}
		part := blas64.General{Rows: hi - lo, Cols: l, Stride: dr.Stride, Data: dr.Data[lo*dr.Stride:]}
		blas64.Trmm(blas.Right, blas.NoTrans, 1, ur, part)
		return nil
	})
}

// transpose returns aᵀ in CSR form.
func (a *csr) transpose() *csr {
	t := &csr{n: a.n, rowPtr: make([]int, a.n+1), col: make([]int32, len(a.col)), val: make([]float64, len(a.val))}
	for _, j := range a.col {
		t.rowPtr[j+1]++
	}
	for i := 0; i < a.n; i++ {
		t.rowPtr[i+1] += t.rowPtr[i]
	}
	next := append([]int(nil), t.rowPtr[:a.n]...)
	for i := 0; i < a.n; i++ {
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			j := a.col[k]
			t.col[next[j]] = int32(i)
			t.val[next[j]] = a.val[k]
			next[j]++
		}
	}
	return t
}

// mulTo sets y to a·x (x and y are n×l dense, distinct) and returns y,
// rows split among GOMAXPROCS goroutines (syncx.Ranges); each row of y
// is the same sum, in the same order, whatever y held before: row i of
// y is Σ over row i's entries, in column order, of a[i][k]·x[k], each
// added with gonum's vector kernel (floats.AddScaled: y += v·x with the
// bits of the Go loop, two lanes at a time; 77 → 41 ms for a 9,157-row
// PPMI matrix with 740,000 entries, 138 columns, on one core).
func (a *csr) mulTo(y, x *mat.Dense) *mat.Dense {
	_, l := x.Dims()
	xr, yr := x.RawMatrix(), y.RawMatrix()
	_ = syncx.Ranges(a.n, 1, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			dst := yr.Data[i*yr.Stride : i*yr.Stride+l]
			clear(dst)
			for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
				v := a.val[k]
				src := xr.Data[int(a.col[k])*xr.Stride : int(a.col[k])*xr.Stride+l]
				floats.AddScaled(dst, v, src)
			}
		}
		return nil
	})
	return y
}
