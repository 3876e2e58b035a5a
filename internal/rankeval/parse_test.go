package rankeval

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMetrics(t *testing.T) {
	ranked := []string{"a", "b", "c", "d", "e", "f"}
	for _, tc := range []struct {
		relevant   []string
		k          int
		recall, rr float64
	}{
		{[]string{"c", "x"}, 2, 0, 0},
		{[]string{"c", "x"}, 3, 0.5, 1.0 / 3},
		{[]string{"a", "b", "c", "d", "e", "f"}, 5, 1, 1}, // capped at k
		{[]string{"f"}, 5, 0, 0},
		{nil, 5, 0, 0},
	} {
		if got := RecallAt(ranked, tc.relevant, tc.k); got != tc.recall {
			t.Errorf("RecallAt(%v, %d) = %v, want %v", tc.relevant, tc.k, got, tc.recall)
		}
		if got := ReciprocalRankAt(ranked, tc.relevant, tc.k); got != tc.rr {
			t.Errorf("ReciprocalRankAt(%v, %d) = %v, want %v", tc.relevant, tc.k, got, tc.rr)
		}
	}
	m := Summarize([]Result{
		{Query{Kind: KindTask, Relevant: []string{"a"}}, []string{"a"}},
		{Query{Kind: KindTask, Relevant: []string{"z"}}, []string{"a", "z"}},
	})
	if want := (Metrics{Queries: 2, RecallAt5: 1, MRRAt10: 0.75}); m[KindTask] != want {
		t.Errorf("Summarize = %+v, want %+v", m[KindTask], want)
	}
}

func TestParseMemories(t *testing.T) {
	good := "# comment\n@ k1 gotcha a,b\nat: sym Limiter.Allow\nTitle one\nBody line 1\nline 2\n\n@ k2 note -\nat: span x/y.go +2 if d > cap\nTitle two\nBody\n"
	got, err := ParseMemories(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []MemorySpec{
		{Key: "k1", Type: "gotcha", Tags: []string{"a", "b"}, Symbol: "Limiter.Allow", Title: "Title one", Body: "Body line 1\nline 2", Line: 2},
		{Key: "k2", Type: "note", Path: "x/y.go", Extra: 2, Marker: "if d > cap", Title: "Title two", Body: "Body", Line: 8},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseMemories = %+v, want %+v", got, want)
	}
	for name, bad := range map[string]string{
		"unknown type":  "@ k hunch -\nat: sym X\nT\nB\n",
		"repeated key":  "@ k note -\nat: sym X\nT\nB\n\n@ k note -\nat: sym Y\nT\nB\n",
		"no body":       "@ k note -\nat: sym X\nT\n",
		"bad place":     "@ k note -\nat: span x.go 2 marker\nT\nB\n",
		"outside block": "stray text\n",
		"short header":  "@ k note\nat: sym X\nT\nB\n",
	} {
		if _, err := ParseMemories(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%s: error %v, want one naming the line", name, err)
		}
	}
}

func TestParseQueries(t *testing.T) {
	got, err := ParseQueries(strings.NewReader("# c\n\ntask | add a limit | k1 k2\n"))
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], Query{Kind: KindTask, Text: "add a limit", Relevant: []string{"k1", "k2"}}) {
		t.Errorf("ParseQueries = %+v, %v", got, err)
	}
	for name, bad := range map[string]string{
		"unknown kind": "fuzzy | q | k\n",
		"no keys":      "task | q | \n",
		"repeated":     "task | q | k\ntask | q | k\n",
		"fields":       "task | q\n",
	} {
		if _, err := ParseQueries(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestRequestSpan(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc F() {\n\treturn\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	req, err := MemorySpec{Key: "k", Title: "T", Body: "B", Path: "a.go", Marker: "func F", Extra: 2}.Request(root)
	if err != nil || req.StartLine != 3 || req.EndLine != 5 || req.Path != filepath.Join(root, "a.go") {
		t.Errorf("Request = %+v, %v; want lines 3-5 of a.go", req, err)
	}
	if _, err := (MemorySpec{Key: "k", Path: "a.go", Marker: "func G"}).Request(root); err == nil {
		t.Error("missing marker: no error")
	}
}
