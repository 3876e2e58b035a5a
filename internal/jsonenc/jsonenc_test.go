package jsonenc

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendStringMatchesMarshal compares AppendString with
// json.Marshal on the characters encoding/json treats specially and on
// random byte strings (invalid UTF-8 included).
func TestAppendStringMatchesMarshal(t *testing.T) {
	cases := []string{
		"", "plain", `a "quoted" \ back`, "tab\tnew\nline\r\b\f", "\x00\x01\x1f\x7f",
		"<script>&amp;</script>", "héllo wörld ✓ 𝄞", "\u2028 and \u2029", "bad \xff\xfe utf8 \xc3",
		"trunc \xe2\x82", "mixed \x00é<\u2029\xff>",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			switch r.IntN(3) {
			case 0:
				b[i] = byte(r.IntN(0x80))
			default:
				b[i] = byte(r.IntN(0x100))
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); string(got[1:]) != string(want) || got[0] != 'x' {
			t.Fatalf("AppendString(%q) = %s, json.Marshal %s", s, got[1:], want)
		}
	}
}

// FuzzAppendString checks AppendString against json.Marshal on
// any string.
func FuzzAppendString(f *testing.F) {
	f.Add("a\"b\\c\n<&>\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, json.Marshal %s", s, got, want)
		}
	})
}

// TestAppendTimeMatchesMarshalJSON compares AppendTime with
// time.Time.MarshalJSON on times in and out of its range, in UTC and
// other zones (offsets up to ±30 hours), bytes and failures alike.
func TestAppendTimeMatchesMarshalJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	times := []time.Time{{}, time.Unix(0, 0).UTC(), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 24, 1, 2, 3, 400, time.FixedZone("x", 23*3600+59*60)),
		time.Date(2026, 11, 24, 1, 2, 3, 0, time.FixedZone("y", 24*3600)),
		time.Date(2026, 11, 24, 1, 2, 3, 0, time.FixedZone("z", -24*3600-60))}
	for range 5000 {
		tm := time.Unix(r.Int64N(1<<40)-1<<39, r.Int64N(1e9))
		switch r.IntN(3) {
		case 0:
			tm = tm.UTC()
		case 1:
			tm = tm.In(time.FixedZone("f", r.IntN(60*3600)-30*3600))
		}
		times = append(times, tm)
	}
	for _, tm := range times {
		want, wantErr := tm.MarshalJSON()
		got, err := AppendTime([]byte("x"), tm)
		if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("%v: error %v, MarshalJSON %v", tm, err, wantErr)
		}
		if err == nil && (string(got[1:]) != string(want) || got[0] != 'x') {
			t.Fatalf("%v: %s, MarshalJSON %s", tm, got[1:], want)
		}
	}
}
