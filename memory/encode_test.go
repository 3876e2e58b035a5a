package memory

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// A memory's stored record is json.Marshal's bytes: memoryEncoder,
// reused for records of different sizes, writes the same (HTML escaped,
// no trailing newline).
func TestMemoryEncoderSameAsMarshal(t *testing.T) {
	at := time.Date(2026, 11, 28, 15, 4, 5, 6, time.UTC)
	ms := []*Memory{
		{V: SchemaVersion, ID: "01JCZ0000000000000000000AA", Type: "gotcha", Title: "a <b> & \"c\"", Body: "line\nnext ✓ \u2028 </script>", Tags: []string{"x", "y"},
			Anchors: []Anchor{{Path: "a/b.go", Symbol: "scip-go gomod m v `a/b`/F()."}}, CreatedAt: at, UpdatedAt: at, Confidence: 0.75, Relations: []Relation{{Kind: "supersedes", ID: "01JCZ0000000000000000000AB"}}},
		{ID: "short"},
		{V: SchemaVersion, ID: "01JCZ0000000000000000000AC", Body: string(bytes.Repeat([]byte("long body "), 500)), StaleSince: at},
	}
	e := memoryEncoders.Get().(*memoryEncoder)
	for round := range 2 {
		for i, m := range ms {
			want, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.encode(m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d memory %d: encoded\n%s\nwant\n%s", round, i, got, want)
			}
		}
	}
}
