package embed

import (
	"math"
	"math/rand"
	"testing"
)

// addScaled and axpy give the bits of the Go loop y[i] += a*x[i]: random
// vectors of every length from 1 to 300 (the AVX2 kernels' blocks and
// their tails), scales of 1, of ordinary and extreme magnitudes, and
// values with subnormals, zeros and mixed signs, summed over repeated
// calls.
func TestAddScaledSameAsAxpy(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	val := func() float32 {
		switch rng.Intn(10) {
		case 0:
			return 0
		case 1:
			return float32(rng.NormFloat64() * 1e-39) // subnormal
		case 2:
			return float32(rng.NormFloat64() * 1e30)
		default:
			return float32(rng.NormFloat64())
		}
	}
	for n := 1; n <= 300; n++ {
		want, got, viaAxpy := make([]float32, n), make([]float32, n), make([]float32, n)
		tmp := make([]float32, n+5)
		for round := range 6 {
			x := make([]float32, n)
			for i := range x {
				x[i] = val()
			}
			a := []float32{1, 0.37, -2.5, 1e-20, 3e20, float32(rng.Float64())}[round]
			for i := range x {
				want[i] += a * x[i]
			}
			addScaled(a, x, got, tmp)
			axpy(a, x, viaAxpy)
			for i := range want {
				for _, c := range []struct {
					name string
					v    float32
				}{{"addScaled", got[i]}, {"axpy", viaAxpy[i]}} {
					if math.Float32bits(want[i]) != math.Float32bits(c.v) && !(want[i] != want[i] && c.v != c.v) {
						t.Fatalf("n %d round %d: %s [%d] = %g (%#x), the loop %g (%#x)", n, round, c.name, i, c.v, math.Float32bits(c.v), want[i], math.Float32bits(want[i]))
					}
				}
			}
		}
	}
}
