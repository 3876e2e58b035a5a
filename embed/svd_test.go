package embed

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gram and mulUpperTo give the bits of the gonum calls they replace
// (SymOuterK(1, y.T()) and Dense.Mul by an upper triangular matrix) on
// matrices with zeros, of odd and even widths, with fewer rows than a
// block and several blocks, on one goroutine and on four.
func TestGramAndMulUpperSameAsGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for _, shape := range [][2]int{{1, 1}, {7, 3}, {gramBlock, 8}, {300, 137}, {1000, 138}} {
			n, l := shape[0], shape[1]
			y := mat.NewDense(n, l, nil)
			for i := range n {
				for j := range l {
					if rng.IntN(5) > 0 {
						y.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(7)-3)))
					}
				}
			}
			var want mat.SymDense
			want.SymOuterK(1, y.T())
			got := gram(y)
			for i := range l {
				for j := i; j < l; j++ {
					if math.Float64bits(got.At(i, j)) != math.Float64bits(want.At(i, j)) {
						t.Fatalf("GOMAXPROCS %d, %d×%d: gram(%d,%d) = %v, gonum %v", procs, n, l, i, j, got.At(i, j), want.At(i, j))
					}
				}
			}
			u := mat.NewTriDense(l, mat.Upper, nil)
			for i := range l {
				for j := i; j < l; j++ {
					u.SetTri(i, j, rng.NormFloat64())
				}
			}
			var wantP mat.Dense
			wantP.Mul(y, u)
			gotP := mat.NewDense(n, l, nil)
			mulUpperTo(gotP, y, u)
			for i := range n {
				for j := range l {
					if math.Float64bits(gotP.At(i, j)) != math.Float64bits(wantP.At(i, j)) {
						t.Fatalf("GOMAXPROCS %d, %d×%d: y·u (%d,%d) = %v, gonum %v", procs, n, l, i, j, gotP.At(i, j), wantP.At(i, j))
					}
				}
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

// mulTo gives the bits of the plain loop y[i] += v·x[k] over row i's
// entries in order, for a matrix with empty rows, repeated columns and
// values of extreme magnitudes.
func TestMulToSameAsLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, l = 500, 138
	a := &csr{n: n, rowPtr: make([]int, n+1)}
	for i := range n {
		for range rng.IntN(40) {
			a.col = append(a.col, int32(rng.IntN(n)))
			a.val = append(a.val, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(41)-20)))
		}
		a.rowPtr[i+1] = len(a.col)
	}
	x := mat.NewDense(n, l, nil)
	for i := range n {
		for j := range l {
			x.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(41)-20)))
		}
	}
	got := a.mulTo(mat.NewDense(n, l, nil), x)
	for i := range n {
		want := make([]float64, l)
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			v := a.val[k]
			for c := range want {
				want[c] += v * x.At(int(a.col[k]), c)
			}
		}
		for c := range want {
			if math.Float64bits(got.At(i, c)) != math.Float64bits(want[c]) {
				t.Fatalf("(%d,%d) = %v, loop %v", i, c, got.At(i, c), want[c])
			}
		}
	}
}
