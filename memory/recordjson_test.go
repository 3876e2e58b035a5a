package memory

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/index"
)

// recordStrings are strings that encoding/json writes in every way it
// can: plain, escaped (quotes, control characters, HTML characters),
// non-ASCII, invalid UTF-8, U+2028.
var recordStrings = []string{
	"", "x", "plain text", `a "quoted" \ back`, "tab\tnew\nline\r\b\f", "\x00\x1f\x7f",
	"<script>&amp;</script>", "héllo wörld ✓ 𝄞", "\u2028 \u2029", "bad \xff\xfe \xc3", "scip-go gomod x . `x`/F().",
}

// fillRecord sets the exported, stored fields of v (a struct, reached
// through its address) to random values from r, each left zero one time
// in four unless full is set: strings from recordStrings, slices nil,
// empty or of up to three elements, times in and out of
// time.Time.MarshalJSON's range, floats plain, in exponent form or NaN.
func fillRecord(v reflect.Value, r *rand.Rand, full bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue
		}
		if !full && r.IntN(4) == 0 {
			continue
		}
		fillValue(v.Field(i), r, full)
	}
}

func fillValue(fv reflect.Value, r *rand.Rand, full bool) {
	switch fv.Kind() {
	case reflect.String:
		s := recordStrings[r.IntN(len(recordStrings))]
		if full && s == "" {
			s = "y"
		}
		fv.SetString(s)
	case reflect.Int:
		fv.SetInt(int64(r.IntN(2000)) - 100)
	case reflect.Uint64:
		fv.SetUint(r.Uint64() >> r.IntN(64))
	case reflect.Bool:
		fv.SetBool(full || r.IntN(2) == 0)
	case reflect.Float64:
		switch r.IntN(8) {
		case 0:
			fv.SetFloat(1e-9 * r.Float64())
		case 1:
			fv.SetFloat(3e22)
		case 2:
			if !full {
				fv.SetFloat(math.NaN())
				return
			}
			fallthrough
		default:
			fv.SetFloat(r.Float64() * 400)
		}
	case reflect.Slice:
		n := r.IntN(4)
		if full {
			n = 1 + r.IntN(3)
		} else if r.IntN(3) == 0 {
			return // nil
		}
		s := reflect.MakeSlice(fv.Type(), n, n)
		for j := 0; j < n; j++ {
			fillValue(s.Index(j), r, full)
		}
		fv.Set(s)
	case reflect.Struct:
		if fv.Type() == reflect.TypeOf(time.Time{}) {
			var tm time.Time
			switch r.IntN(6) {
			case 0:
				if full {
					tm = time.Unix(1, 0).UTC()
				}
			case 1:
				tm = time.Date(10000+r.IntN(5), 1, 1, 0, 0, 0, 0, time.UTC) // MarshalJSON fails
			case 2:
				tm = time.Unix(r.Int64N(1<<34), r.Int64N(1e9)).In(time.FixedZone("z", 3600*r.IntN(20)))
			default:
				tm = time.Unix(r.Int64N(1<<34), r.Int64N(1e9)).UTC()
			}
			fv.Set(reflect.ValueOf(tm))
			return
		}
		fillRecord(fv, r, full)
	}
}

// checkRecordAsMarshal fails t unless appendRecord writes m as
// json.Marshal does, bytes and errors alike, after a prefix it keeps.
func checkRecordAsMarshal(t *testing.T, m *Memory) {
	t.Helper()
	want, wantErr := json.Marshal(m)
	got, err := appendRecord([]byte("prefix"), m)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("error %v, json.Marshal %v", err, wantErr)
	}
	if !strings.HasPrefix(string(got), "prefix") {
		t.Fatalf("prefix lost: %q", got)
	}
	if err == nil && string(got[len("prefix"):]) != string(want) {
		t.Fatalf("appendRecord:\n%s\njson.Marshal:\n%s", got[len("prefix"):], want)
	}
}

// appendRecord writes what json.Marshal writes for memories with every
// stored field set (so a field added to Memory, Anchor, Relation or
// index.Range and not to appendRecord fails here), with random fields
// left zero (omitempty, omitzero, null slices), and for values it hands
// to json.Marshal (exponent-form and NaN floats, times MarshalJSON
// refuses), errors included; and for a memory made by Remember.
func TestAppendRecordAsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 3000 {
		var m Memory
		fillRecord(reflect.ValueOf(&m).Elem(), r, i%3 == 0)
		checkRecordAsMarshal(t, &m)
	}
	var full Memory
	fillRecord(reflect.ValueOf(&full).Elem(), rand.New(rand.NewPCG(7, 8)), true)
	full.Confidence, full.HalfLifeDays = 0.5, 90
	for i := range full.Anchors {
		full.Anchors[i].ResolvedAt = time.Unix(5, 0).UTC()
	}
	full.CreatedAt, full.UpdatedAt, full.VerifiedAt, full.LastAccessedAt, full.StaleSince, full.ExpiresAt = time.Unix(1, 0), time.Unix(2, 0), time.Unix(3, 0), time.Unix(4, 0), time.Unix(5, 0), time.Unix(6, 0)
	data, err := appendRecord(nil, &full)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	if n := reflect.TypeOf(Memory{}).NumField() - 6; len(keys) != n { // 4 `json:"-"` fields and 2 unexported
		t.Fatalf("%d members written for a full memory, want %d: %s", len(keys), n, data)
	}
	checkRecordAsMarshal(t, &full)

	w, repo := storedWorkspace(t, Options{})
	m, err := w.Remember(context.Background(), RememberRequest{Text: "a <note> & \"more\"", Path: repo + "/a.go", StartLine: 8, EndLine: 15, Tags: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	checkRecordAsMarshal(t, m)
}

// FuzzAppendRecordAsMarshal checks appendRecord against json.Marshal on
// memories made from a seed, with the fuzzer's strings as body, tag and
// snapshot.
func FuzzAppendRecordAsMarshal(f *testing.F) {
	f.Add(uint64(1), "body <&>", "tag\u2028", "snap\xff")
	f.Fuzz(func(t *testing.T, seed uint64, body, tag, snapshot string) {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		var m Memory
		fillRecord(reflect.ValueOf(&m).Elem(), r, seed%2 == 0)
		m.Body = body
		m.Tags = append(m.Tags, tag)
		if len(m.Anchors) > 0 {
			m.Anchors[0].Snapshot = snapshot
		}
		checkRecordAsMarshal(t, &m)
	})
}

// BenchmarkAppendRecord encodes a memory shaped like those of a batch on
// prometheus (one symbol anchor, a five-line snapshot, context lines; 1.7
// KB of JSON) with appendRecord, and with json.Marshal for comparison.
func BenchmarkAppendRecord(b *testing.B) {
	at := time.Date(2026, 11, 28, 18, 33, 3, 193728848, time.UTC)
	rng := index.Range{StartLine: 85, EndLine: 89, EndCol: 1, StartByte: 1944, EndByte: 2082}
	m := &Memory{V: SchemaVersion, ID: "01M8HPX8Z8DPVFXTFYSA0T970Y", Type: "error_pattern",
		Title: "ShortString: race slice or the compaction reads a stale sna…",
		Body:  "ShortString: race slice or the compaction reads a stale snapshot.\n\nSee printer.go (note 1): check stable and follower before changing the benchmark.",
		Anchors: []Anchor{{Path: "promql/parser/printer.go", Symbol: "scip-go gomod github.com/prometheus/prometheus . `github.com/prometheus/prometheus/promql/parser`/AggregateExpr#ShortString().",
			Kind: KindSymbol, Range: rng, ContentHash: strings.Repeat("39", 32), SignatureHash: strings.Repeat("de", 32), BodyHash: strings.Repeat("ab", 32), BodyUnique: true,
			DefKind: "method", DefName: "ShortString", Snapshot: "func (node *AggregateExpr) ShortString() string {\n\tb := bytes.NewBuffer(make([]byte, 0, 1024))\n\tnode.writeAggOpStr(b)\n\treturn b.String()\n}",
			ContextBefore: []string{"\treturn b.String()", "}", ""}, ContextAfter: []string{"", "func (node *AggregateExpr) writeAggOpStr(b *bytes.Buffer) {", "\tb.WriteString(node.Op.String())"},
			GitCommit: strings.Repeat("d1", 20), GitBlob: strings.Repeat("70", 20), Status: StatusFresh, OriginPath: "promql/parser/printer.go", OriginRange: rng,
			FileHash: strings.Repeat("bc", 32), ResolvedGen: 1, ResolvedAt: at}},
		Scope: ScopePersonal, Source: "user", Author: "Seed maintainers", CreatedAt: at, UpdatedAt: at, VerifiedAt: at,
		Confidence: 0.9999999867017978, HalfLifeDays: 120, GitCommit: strings.Repeat("d1", 20), GitBranch: "main"}
	b.Run("appendRecord", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = appendRecord(buf[:0], m)
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(m)
		}
	})
}
