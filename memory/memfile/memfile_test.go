package memfile

import (
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/index"
)

// A header with every kind of field survives Doc then Parse, machine
// fields are written in flow style, and the body comes back trimmed.
func TestDocParseRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := index.Range{StartLine: 3, StartCol: 1, EndLine: 11, EndCol: 1, StartByte: 40, EndByte: 200}
	h := Header{
		ID: "01ABCDEFGHJKMNPQRSTVWXYZ00", Type: "gotcha", Title: "Retry cap", Tags: []string{"net"},
		Anchors: []Anchor{{Path: "a/b.go", Symbol: "s", Lines: "4-12", Kind: "symbol", Range: RangeSeq(r),
			ContentHash: "c", SignatureHash: "g", BodyHash: "b", Tokens: FlowSeq[string]{"x", "z"}}},
		CreatedAt: at, UpdatedAt: at, Source: "user", Pinned: true,
		Relations: []Relation{{Kind: "supersedes", ID: "01ABCDEFGHJKMNPQRSTVWXYZ01"}}, HalfLife: 30,
	}
	data := Doc(h, "\n  Body text  \n")
	for _, want := range []string{"range: [3, 1, 11, 1, 40, 200]", "tokens: [x, z]", "  - kind: supersedes\n", "half_life_days: 30"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("document lacks %q:\n%s", want, data)
		}
	}
	got, body, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if body != "Body text" {
		t.Errorf("body %q", body)
	}
	if got.Title != h.Title || len(got.Relations) != 1 || got.Relations[0] != h.Relations[0] || !got.CreatedAt.Equal(at) || got.HalfLife != 30 {
		t.Errorf("header %+v, want %+v", got, h)
	}
	if gr, ok := SeqRange(got.Anchors[0].Range); !ok || gr != r || got.Anchors[0].Legacy() {
		t.Errorf("anchor range %v %v legacy %v", gr, ok, got.Anchors[0].Legacy())
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"no front matter", "does not start with ---"},
		{"---\nid: x\n", "not closed"},
		{"---\nid: [\n---\n", "front matter"},
		{"---\nid: x\n---\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> other\n", "line 4: unresolved merge conflict"},
	} {
		if _, _, err := Parse([]byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.data, err, tc.want)
		}
	}
	// A lone marker-like line is text, not a conflict.
	if _, body, err := Parse([]byte("---\nid: x\n---\n<<<<<<< not a conflict\n")); err != nil || body != "<<<<<<< not a conflict" {
		t.Errorf("lone marker: %q %v", body, err)
	}
}

func TestParseLinesAndPaths(t *testing.T) {
	if f, l, err := ParseLines(" 4-12 "); err != nil || f != 3 || l != 11 {
		t.Errorf("ParseLines(4-12) = %d %d %v", f, l, err)
	}
	if f, l, err := ParseLines("7"); err != nil || f != 6 || l != 6 {
		t.Errorf("ParseLines(7) = %d %d %v", f, l, err)
	}
	for _, s := range []string{"0-3", "5-4", "a-b", ""} {
		if _, _, err := ParseLines(s); err == nil {
			t.Errorf("ParseLines(%q): want an error", s)
		}
	}
	if err := CheckRelPath("a/b.go"); err != nil {
		t.Error(err)
	}
	for _, p := range []string{"", "/a", "../a", "a/../b", `a\b`, ".", "a/"} {
		if CheckRelPath(p) == nil {
			t.Errorf("CheckRelPath(%q): want an error", p)
		}
	}
	if _, ok := SeqRange(FlowSeq[int]{1, 0, 0, 0, 0, 0}); ok {
		t.Error("SeqRange of a range ending before it starts: want !ok")
	}
}

// TestSnapshotTabsRoundTrip: a span's snapshot of Go code (lines
// starting with tabs, the first one too) is written so that Parse reads
// it back; yaml.v3's literal block for a leading tab did not parse.
func TestSnapshotTabsRoundTrip(t *testing.T) {
	for _, snap := range []string{
		"\t\"errors\"\n\t\"fmt\"\n\t\"io\"",
		"\tif err != nil {\n\t\treturn err\n\t}",
		"func f() {\n\treturn\n}",
		"\t x := 1",
		"plain",
	} {
		h := Header{ID: "01ARZ3NDEKTSV4RRFFQ69G5FAV", Type: "note", Anchors: []Anchor{{Path: "a.go", Lines: "1-3", Kind: "span", Snapshot: Text(snap)}}}
		got, _, err := Parse(Doc(h, "body"))
		if err != nil {
			t.Fatalf("snapshot %q: %v\n%s", snap, err, Doc(h, "body"))
		}
		if string(got.Anchors[0].Snapshot) != snap {
			t.Fatalf("snapshot %q read back as %q", snap, got.Anchors[0].Snapshot)
		}
	}
}
