package binrec

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
	"unsafe"
)

// record writes one field of each kind.
func record(t *testing.T, when time.Time) []byte {
	t.Helper()
	b := AppendString(nil, "héllo")
	b = AppendString(b, "")
	b = AppendBool(AppendBool(b, true), false)
	b = binary.AppendVarint(b, -42)
	b = binary.AppendUvarint(b, 1<<40)
	b, err := AppendTimes(b, when, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// read reads record's fields back.
func read(d *Decoder) (s1, s2 string, b1, b2 bool, i int, u uint64, t1, t2 time.Time) {
	s1, s2 = d.Str(), d.Str()
	b1, b2 = d.Bool(), d.Bool()
	i, u = d.Int(), d.Uvarint()
	d.Times(&t1, &t2)
	return
}

// Every field reads back as written, with and without whole, and with
// whole each string is a substring of it (no copy).
func TestRoundTrip(t *testing.T) {
	when := time.Date(2026, 11, 28, 3, 4, 5, 6, time.FixedZone("x", 3600))
	data := record(t, when)
	for _, whole := range []string{"", string(data)} {
		d := NewDecoder(data, whole)
		s1, s2, b1, b2, i, u, t1, t2 := read(&d)
		if err := d.Done(); err != nil {
			t.Fatalf("whole %v: %v", whole != "", err)
		}
		if s1 != "héllo" || s2 != "" || !b1 || b2 || i != -42 || u != 1<<40 || !t1.Equal(when) || !t2.IsZero() {
			t.Errorf("whole %v: read %q %q %v %v %d %d %v %v", whole != "", s1, s2, b1, b2, i, u, t1, t2)
		}
		if _, off := t1.Zone(); off != 3600 {
			t.Errorf("zone offset %d, want 3600", off)
		}
		if whole != "" && unsafe.StringData(s1) != unsafe.StringData(whole[1:]) {
			t.Error("with whole, Str copied instead of returning a substring")
		}
	}
}

// Every truncation is an error, never a panic; the error sticks and
// later reads give zero values; bytes left over fail Done.
func TestMalformed(t *testing.T) {
	data := record(t, time.Unix(1e9, 0).UTC())
	for cut := range len(data) {
		d := NewDecoder(data[:cut], "")
		read(&d)
		if d.Err() == nil {
			t.Errorf("cut at %d of %d: no error", cut, len(data))
		}
		if d.Str() != "" || d.Int() != 0 || d.Bool() {
			t.Errorf("cut at %d: reads after an error are not zero", cut)
		}
	}
	d := NewDecoder(append(data, 0), "")
	read(&d)
	if err := d.Done(); !errors.Is(err, ErrMalformed) {
		t.Errorf("a byte left over: Done = %v, want ErrMalformed", err)
	}
	// A length larger than what is left must not allocate it.
	d = NewDecoder(binary.AppendUvarint(nil, 1<<60), "")
	if n := d.Count(); n != 0 || d.Err() == nil {
		t.Errorf("Count of a huge length: %d, %v", n, d.Err())
	}
}
