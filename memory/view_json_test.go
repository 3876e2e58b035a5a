package memory

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendJSONStringMatchesMarshal compares appendJSONString with
// json.Marshal on the characters encoding/json treats specially and on
// random byte strings (invalid UTF-8 included).
func TestAppendJSONStringMatchesMarshal(t *testing.T) {
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
		if got := appendJSONString([]byte("x"), s); string(got[1:]) != string(want) || got[0] != 'x' {
			t.Fatalf("appendJSONString(%q) = %s, json.Marshal %s", s, got[1:], want)
		}
	}
}

// FuzzAppendJSONString checks appendJSONString against json.Marshal on
// any string.
func FuzzAppendJSONString(f *testing.F) {
	f.Add("a\"b\\c\n<&>\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("appendJSONString(%q) = %s, json.Marshal %s", s, got, want)
		}
	})
}
