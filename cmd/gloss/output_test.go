package main

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// TestPrintCheckJSONSameBytes: the streamed check output is byte for byte
// what encoding the whole result prints, with and without memories, and
// with a few thousand memories.
func TestPrintCheckJSONSameBytes(t *testing.T) {
	v := memory.View{ID: "01J0000000000000000000000A", Type: "note", Title: "t <&>", Body: "b\n\"q\"", Tags: []string{"x"},
		Scope: "personal", Source: "user", CreatedAt: time.Unix(1, 0).UTC(),
		Anchors: []memory.AnchorView{{Path: "a.go", Kind: "symbol", StartLine: 1, EndLine: 3, Status: "changed"}}}
	many := make([]memory.View, 2051)
	for i := range many {
		many[i] = v
		many[i].Title = fmt.Sprintf("memory %d", i)
	}
	for _, res := range []api.CheckResult{
		{Memories: many, ChangedFiles: []string{}},
		{ChangedFiles: []string{}},
		{Memories: []memory.View{}, ChangedFiles: []string{}},
		{Memories: []memory.View{v, v}, Stale: 2, Resolved: 1, ChangedFiles: []string{"a.go"}, ElapsedMS: 1.5,
			Problems: []memory.FileProblem{{Path: ".gloss/memories/x.md", Message: "m"}}},
	} {
		var want, got bytes.Buffer
		if err := printJSON(&want, res); err != nil {
			t.Fatal(err)
		}
		if err := printCheckJSON(&got, res); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("streamed:\n%s\nwant:\n%s", got.String(), want.String())
		}
	}
}

// printMemoryFmt is printMemory as it was written with fmt (before the
// appends), the reference its bytes must equal.
func printMemoryFmt(w *bytes.Buffer, m memory.View) {
	mark := "ok   "
	if m.Stale {
		mark = "STALE"
	}
	fmt.Fprintf(w, "%s  %s  %s  [%s] %s%s\n", m.ID, mark, confidenceMark(m), termSafe(m.Type, false), termSafe(m.Title, false), lifecycleLabels(m))
	for _, a := range m.Anchors {
		s := fmt.Sprintf("%s:%s", termSafe(a.Path, false), lineSpanFmt(a.StartLine, a.EndLine))
		switch {
		case a.OriginStartLine == 0:
		case a.OriginPath != a.Path:
			s += fmt.Sprintf(" (was %s:%s)", termSafe(a.OriginPath, false), lineSpanFmt(a.OriginStartLine, a.OriginEndLine))
		default:
			s += fmt.Sprintf(" (was %s)", lineSpanFmt(a.OriginStartLine, a.OriginEndLine))
		}
		fmt.Fprintf(w, "    %-17s %s", a.Status, s)
		if a.Symbol != "" {
			fmt.Fprintf(w, "  %s", termSafe(a.Symbol, false))
		}
		fmt.Fprintln(w)
	}
}

func lineSpanFmt(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}

// TestPrintMemorySameBytesAsFmt: check's memory lines, appended into one
// buffer, are the bytes the fmt formats printed: stale and fresh, moved
// within and across files, without a symbol, with escapes, a long status,
// negative lines and lifecycle labels.
func TestPrintMemorySameBytesAsFmt(t *testing.T) {
	views := []memory.View{
		{ID: "01J0000000000000000000000A", Type: "note", Title: "plain", ViewLifecycle: memory.ViewLifecycle{Confidence: 1},
			Anchors: []memory.AnchorView{{Path: "a.go", Symbol: "pkg/A().", StartLine: 3, EndLine: 3, Status: "fresh"}}},
		{ID: "01J0000000000000000000000B", Type: "gotcha\x1b[31m", Title: "t\u202eévil\n", Stale: true,
			SupersededBy: []string{"X", "Y"}, ViewLifecycle: memory.ViewLifecycle{Confidence: 0.456, NeedsReview: true}, ReviewReason: "why\x07",
			Anchors: []memory.AnchorView{
				{Path: "b/é.go", StartLine: 10, EndLine: 12, Status: "moved", OriginStartLine: 4, OriginEndLine: 6, OriginPath: "b/é.go"},
				{Path: "c.go", StartLine: -1, EndLine: 2, Status: "signature_changed_and_more", OriginStartLine: 7, OriginEndLine: 7, OriginPath: "old\x01.go", Symbol: "s\x1b"},
				{Path: "d.go", StartLine: 1, EndLine: 1, Status: "deleted"},
			}},
		{ID: "01J0000000000000000000000C", Type: "decision", Title: "", ViewLifecycle: memory.ViewLifecycle{Confidence: math.Copysign(0, -1)}},
	}
	for _, v := range views {
		var want, got bytes.Buffer
		printMemoryFmt(&want, v)
		printMemory(&got, v, false)
		if got.String() != want.String() {
			t.Fatalf("printMemory:\n%q\nwant\n%q", got.String(), want.String())
		}
	}
}
