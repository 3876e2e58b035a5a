package memory

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// filledView is a View with every field set (testutil.Fill), so a field
// added to View later is covered by the tests below without editing them.
func filledView(seed int, str func(int) string) View {
	var v View
	testutil.Fill(reflect.ValueOf(&v).Elem(), seed, str)
	return v
}

func plainString(i int) string { return "s" + strings.Repeat("x", i%5) }

func escapedString(i int) string {
	return []string{"", "a\"b\\c", "<tag> & more", "tab\there\nline", "ünïcode ✓", "\u2028sep", "bad\xffutf8", "\x01ctl"}[i%8]
}

func TestSummaryCodecRoundTrip(t *testing.T) {
	for seed, str := range []func(int) string{plainString, escapedString, func(int) string { return "" }} {
		v := filledView(seed, str)
		v.Placement, v.NearDuplicates, v.Decision = "", nil, nil // not stored (remember results only)
		data, err := encodeSummary(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeSummary(data)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(v)
		have, _ := json.Marshal(got)
		if !bytes.Equal(want, have) {
			t.Errorf("round trip changed the view:\nwant %s\nhave %s", want, have)
		}
		for cut := 1; cut < len(data); cut += 7 {
			if _, err := decodeSummary(data[:cut]); err == nil {
				t.Fatalf("truncated record (%d of %d bytes) decoded without error", cut, len(data))
			}
		}
	}
}

func TestDecodeSummaryReadsJSON(t *testing.T) {
	v := filledView(1, plainString)
	v.NearDuplicates = nil
	data, _ := json.Marshal(v)
	got, err := decodeSummary(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Anchors, v.Anchors) || got.Title != v.Title || !got.CreatedAt.Equal(v.CreatedAt) {
		t.Fatalf("JSON summary decoded as %+v", got)
	}
	if _, err := decodeSummary([]byte{0x7f, 1, 2}); err == nil {
		t.Fatal("unknown record form decoded without error")
	}
}

// TestSummaryScope checks that summaryScope reads the scope of binary and
// JSON summaries and reports a truncated one.
func TestSummaryScope(t *testing.T) {
	v := View{ID: "01X", Type: "gotcha", Title: "t", Body: "b", Tags: []string{"x", "y"}, Stale: true, Scope: ScopeProject, Source: "user"}
	bin, err := encodeSummary(v)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{bin, js} {
		if got, err := summaryScope(data); err != nil || got != ScopeProject {
			t.Errorf("summaryScope(%.20q) = %q, %v; want %q", data, got, err, ScopeProject)
		}
	}
	if _, err := summaryScope(bin[:8]); err == nil {
		t.Error("summaryScope of a truncated summary: no error")
	}
}
