package main

import (
	"slices"
	"testing"
)

// medianRow picks the row of the median key (the lower middle one for
// an even count), whatever the rows' order, and lists every row's key in
// run order.
func TestMedianRow(t *testing.T) {
	for _, tc := range []struct {
		ratios []float64
		want   float64
	}{
		{[]float64{1.2}, 1.2},
		{[]float64{1.3, 1.1, 1.2}, 1.2},
		{[]float64{1.0, 3.0}, 1.0},
		{[]float64{1.15, 1.05, 1.25, 1.10}, 1.10},
	} {
		var rows []row
		for i, v := range tc.ratios {
			rows = append(rows, row{"ratio_to_bare": v, "run": i})
		}
		m := medianRow(rows, "ratio_to_bare", "ratios")
		if num(m, "ratio_to_bare") != tc.want {
			t.Errorf("%v: median row has %v, want %v", tc.ratios, m["ratio_to_bare"], tc.want)
		}
		if got := m["ratios"].([]float64); !slices.Equal(got, tc.ratios) {
			t.Errorf("%v: ratios %v", tc.ratios, got)
		}
	}
}
