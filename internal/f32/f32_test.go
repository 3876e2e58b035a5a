package f32

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestViewBytesRoundTrip checks that Bytes gives the little-endian
// encoding of each float32 and that View reads it back, both from an
// aligned slice (in place) and from one shifted by a byte (a copy).
func TestViewBytesRoundTrip(t *testing.T) {
	v := []float32{0, 1.5, -2.25, float32(math.Inf(1)), 3e-38}
	b := Bytes(v)
	if len(b) != 4*len(v) {
		t.Fatalf("Bytes: %d bytes, want %d", len(b), 4*len(v))
	}
	for i, x := range v {
		if got := binary.LittleEndian.Uint32(b[4*i:]); got != math.Float32bits(x) {
			t.Fatalf("Bytes[%d] = %#x, want %#x", i, got, math.Float32bits(x))
		}
	}
	shifted := append([]byte{0xff}, b...)[1:]
	for name, src := range map[string][]byte{"aligned": append([]byte(nil), b...), "shifted": shifted} {
		got := View(src, len(v))
		if len(got) != len(v) || cap(got) != len(v) {
			t.Fatalf("%s: View gave len %d cap %d, want %d", name, len(got), cap(got), len(v))
		}
		for i := range v {
			if got[i] != v[i] {
				t.Fatalf("%s: View[%d] = %v, want %v", name, i, got[i], v[i])
			}
		}
	}
	if View(nil, 0) != nil || len(Bytes(nil)) != 0 {
		t.Fatal("empty input must give empty output")
	}
}
