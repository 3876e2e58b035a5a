package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseLocation(t *testing.T) {
	for _, tt := range []struct {
		in         string
		path       string
		start, end int
		err        string // substring of the error; "" for success
	}{
		{in: "a.go", path: "a.go"},
		{in: "", path: ""},
		{in: "a.go:3", path: "a.go", start: 3, end: 3},
		{in: "dir/a.go:3-7", path: "dir/a.go", start: 3, end: 7},
		{in: "a.go:5-5", path: "a.go", start: 5, end: 5},
		{in: "C:/x/a.go:2-4", path: "C:/x/a.go", start: 2, end: 4},
		{in: ":3", err: "want PATH:LINE or PATH:START-END"},
		{in: "a.go:", err: "lines are 1-based numbers"},
		{in: "a.go:0", err: "lines are 1-based numbers"},
		{in: "a.go:-3", err: "lines are 1-based numbers"},
		{in: "a.go:x", err: "lines are 1-based numbers"},
		{in: "a.go:7-3", err: "end line must be a number ≥ start line"},
		{in: "a.go:3-", err: "end line must be a number ≥ start line"},
		{in: "a.go:3-4-5", err: "end line must be a number ≥ start line"},
	} {
		path, start, end, err := parseLocation(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.in)) {
				t.Errorf("parseLocation(%q) error %v, want one naming the input and containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || path != tt.path || start != tt.start || end != tt.end {
			t.Errorf("parseLocation(%q) = %q, %d, %d, %v; want %q, %d, %d", tt.in, path, start, end, err, tt.path, tt.start, tt.end)
		}
	}
}

// FuzzParseLocation: parseLocation never panics; a success has no lines
// (0, 0) or 1 ≤ start ≤ end with a non-empty path, and PATH:START-END
// formatted from it parses back to the same.
func FuzzParseLocation(f *testing.F) {
	for _, s := range []string{"a.go", "", "a.go:3", "dir/a.go:3-7", "C:/x/a.go:2-4", ":3", "a.go:", "a.go:0", "a.go:-3", "a.go:7-3", "a.go:+3-+4", "a.go:3-4-5", "a.go:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path, start, end, err := parseLocation(s)
		if err != nil {
			if path != "" || start != 0 || end != 0 {
				t.Fatalf("parseLocation(%q) failed (%v) but returned %q, %d, %d", s, err, path, start, end)
			}
			return
		}
		if start == 0 && end == 0 {
			if path != s {
				t.Fatalf("parseLocation(%q) without lines returned path %q", s, path)
			}
			return
		}
		if start < 1 || end < start {
			t.Fatalf("parseLocation(%q) = lines %d-%d", s, start, end)
		}
		if path == "" {
			t.Fatalf("parseLocation(%q) returned lines %d-%d with an empty path", s, start, end)
		}
		loc := fmt.Sprintf("%s:%d-%d", path, start, end)
		p2, s2, e2, err := parseLocation(loc)
		if err != nil || p2 != path || s2 != start || e2 != end {
			t.Fatalf("parseLocation(%q) = %q, %d, %d; re-parsing %q gave %q, %d, %d, %v", s, path, start, end, loc, p2, s2, e2, err)
		}
	})
}

// TestBatchLocationSameAsLocation checks that the locations of a batch
// (the working directory read once) are location's, with and without -C,
// for relative, absolute, dotted and empty paths.
func TestBatchLocationSameAsLocation(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "x", "..", "y.go")
	for _, dir := range []string{"", ".", "sub", "../up", abs} {
		g := &globals{dir: dir}
		batch := g.batchLocation()
		for _, p := range []string{"a.go", "./a.go", "d/../b.go", "../c.go", "d//e.go", abs, "/tmp/../tmp/f.go", ""} {
			for _, lines := range [][2]int{{0, 0}, {3, 3}, {2, 9}} {
				want, werr := g.location(p, lines[0], lines[1])
				got, gerr := batch(p, lines[0], lines[1])
				if !reflect.DeepEqual(got, want) || (gerr == nil) != (werr == nil) {
					t.Fatalf("-C %q, %q %v: batch %v, %v; location %v, %v", dir, p, lines, got, gerr, want, werr)
				}
			}
		}
	}
}
