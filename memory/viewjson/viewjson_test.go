package viewjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// filledView is a View with every field set (testutil.Fill), so a field
// added to View later is covered without editing the test.
func filledView(seed int, str func(int) string) memory.View {
	var v memory.View
	testutil.Fill(reflect.ValueOf(&v).Elem(), seed, str)
	return v
}

func plainString(i int) string { return "s" + strings.Repeat("x", i%5) }

func escapedString(i int) string {
	return []string{"", "a\"b\\c", "<tag> & more", "tab\there\nline", "ünïcode ✓", "\u2028sep", "bad\xffutf8", "\x01ctl"}[i%8]
}

// Append writes what json.MarshalIndent writes, and AppendCompact what
// json.Marshal writes, for views with every field set, with the fields
// only encoding/json writes unset (their fast path), and empty ones.
func TestAppendMatchesMarshalIndent(t *testing.T) {
	cases := []memory.View{{}, {Anchors: []memory.AnchorView{}}, memory.ViewOf(&memory.Memory{ID: "x", Title: "t"})}
	for seed, str := range []func(int) string{plainString, escapedString, func(int) string { return "" }} {
		v := filledView(seed, str)
		cases = append(cases, v)
		v.NearDuplicates = nil
		cases = append(cases, v)
		v.Relations, v.SupersededBy, v.Decision = nil, nil, nil // the fast path
		cases = append(cases, v)
		v.Confidence, v.Pinned, v.StaleSince = 0.123456789, !v.Pinned, time.Time{}
		cases = append(cases, v)
	}
	for i, v := range cases {
		want, err := json.MarshalIndent(v, "    ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		have, err := Append([]byte("prefix"), &v, "    ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, append([]byte("prefix"), want...)) {
			t.Errorf("case %d:\nwant %s\nhave %s", i, want, have[len("prefix"):])
		}
		want, err = json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		have, err = AppendCompact([]byte("prefix"), &v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, append([]byte("prefix"), want...)) {
			t.Errorf("case %d, compact:\nwant %s\nhave %s", i, want, have[len("prefix"):])
		}
	}
}
