package memory

// MaxSearchLimit caps the number of results Search returns (and asks the
// full-text index for, twice as many): larger limits, such as
// `gloss search -n 4611686018427387904`, are lowered to it instead of
// overflowing.
const MaxSearchLimit = 10000

// clampSearchLimit returns limit within 1..MaxSearchLimit; 0 or less means
// the default of 20.
func clampSearchLimit(limit int) int {
	switch {
	case limit <= 0:
		return 20
	case limit > MaxSearchLimit:
		return MaxSearchLimit
	}
	return limit
}
