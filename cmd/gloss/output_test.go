package main

import (
	"bytes"
	"fmt"
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
