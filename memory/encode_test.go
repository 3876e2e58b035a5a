package memory

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// A memory's stored record is json.Marshal's bytes: encodeRecord,
// appending records of different sizes to one encoder's buffer as
// putMemories does, gives each the bytes json.Marshal gives it (HTML
// escaped, no trailing newline), after bringing it in step for storing.
func TestMemoryEncoderSameAsMarshal(t *testing.T) {
	at := time.Date(2026, 11, 28, 15, 4, 5, 6, time.UTC)
	w := &Workspace{now: func() time.Time { return at }}
	ms := []*Memory{
		{V: SchemaVersion, ID: "01JCZ0000000000000000000AA", Type: "gotcha", Title: "a <b> & \"c\"", Body: "line\nnext ✓ \u2028 </script>", Tags: []string{"x", "y"},
			Anchors: []Anchor{{Path: "a/b.go", Symbol: "scip-go gomod m v `a/b`/F()."}}, CreatedAt: at, UpdatedAt: at, Confidence: 0.75, Relations: []Relation{{Kind: "supersedes", ID: "01JCZ0000000000000000000AB"}}},
		{ID: "short"},
		{V: SchemaVersion, ID: "01JCZ0000000000000000000AC", Body: string(bytes.Repeat([]byte("long body "), 500)), StaleSince: at},
	}
	e := memoryEncoders.Get().(*memoryEncoder)
	e.buf = e.buf[:0]
	var recs []memoryRecord
	for _, m := range ms {
		recs = append(recs, w.encodeRecord(e, m))
	}
	for i, m := range ms {
		want, err := json.Marshal(m)
		if err != nil || recs[i].err != nil {
			t.Fatal(err, recs[i].err)
		}
		if got := e.buf[recs[i].start:recs[i].end]; !bytes.Equal(got, want) {
			t.Fatalf("memory %d: encoded\n%s\nwant\n%s", i, got, want)
		}
		if len(recs[i].summary) == 0 {
			t.Fatalf("memory %d: no summary", i)
		}
	}
}
