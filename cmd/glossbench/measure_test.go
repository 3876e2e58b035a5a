package main

import (
	"os"
	"path/filepath"
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

// copyExecutable copies the binary byte for byte into the work directory,
// executable, and refuses a binary that does not exist.
func TestCopyExecutable(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "gloss")
	data := []byte("#!/bin/sh\necho gloss\n")
	if err := os.WriteFile(src, data, 0o700); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	got, err := copyExecutable(src, work)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(got)
	if err != nil || string(b) != string(data) || filepath.Dir(got) != work {
		t.Fatalf("copy %s: %q, %v", got, b, err)
	}
	if fi, err := os.Stat(got); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("copy not executable: %v, %v", fi.Mode(), err)
	}
	if _, err := copyExecutable(filepath.Join(dir, "missing"), work); err == nil {
		t.Fatal("copied a binary that does not exist")
	}
}
