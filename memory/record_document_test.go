package memory

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A document opened with the content that was indexed is resolved from
// its index record and stored tokens (no parse), with
// the same memories, anchors and definitions as a parse of it gives; its
// first edit parses it, and a document whose buffer differs from the
// indexed content is parsed from the start.
func TestOpenedDocumentFromRecord(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	w.now = func() time.Time { return at }
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	for _, req := range []RememberRequest{
		{Text: "Open note", Path: filepath.Join(repo, "a.go"), StartLine: 10, EndLine: 15},   // a definition: symbol anchor
		{Text: "branch note", Path: filepath.Join(repo, "a.go"), StartLine: 11, EndLine: 13}, // inside one: span anchor
		{Text: "get note", Path: filepath.Join(repo, "m.py"), StartLine: 4, EndLine: 8},
	} {
		if _, err := w.Remember(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	// resolve returns the memories and definitions of the document rel
	// with content src, and the number of document parses made so far.
	resolve := func(rel string, src []byte) ([]*Memory, []any, int) {
		t.Helper()
		ms, defs, err := w.ResolveDocumentDefs(filepath.Join(repo, rel), src)
		if err != nil {
			t.Fatal(err)
		}
		w.docMu.Lock()
		parses := w.docParses
		w.docMu.Unlock()
		var ds []any
		for _, d := range defs {
			ds = append(ds, d.Symbol, d.Range)
		}
		return ms, ds, parses
	}
	for _, rel := range []string{"a.go", "m.py"} {
		src, err := os.ReadFile(filepath.Join(repo, rel))
		if err != nil {
			t.Fatal(err)
		}
		before := w.docParses
		ms, defs, parses := resolve(rel, src)
		if parses != before {
			t.Errorf("%s opened unchanged: parsed, want its record", rel)
		}
		if len(ms) == 0 || len(defs) == 0 {
			t.Fatalf("%s: %d memories, %d definitions", rel, len(ms), len(defs))
		}
		// The same document parsed: same memories and definitions.
		w.ForgetDocument(filepath.Join(repo, rel))
		w.parseSpans = true // no stored tokens: recordDocument declines
		pms, pdefs, pparses := resolve(rel, src)
		w.parseSpans = false
		if pparses != parses+1 {
			t.Fatalf("%s without stored tokens: not parsed", rel)
		}
		if !reflect.DeepEqual(ms, pms) || !reflect.DeepEqual(defs, pdefs) {
			t.Errorf("%s: from its record\n%+v\n%v\nparsed\n%+v\n%v", rel, ms, defs, pms, pdefs)
		}
		for _, m := range ms {
			for _, a := range m.Anchors {
				if a.Status != StatusFresh {
					t.Errorf("%s: %q is %s, want fresh", rel, m.Body, a.Status)
				}
			}
		}
		// The first edit parses it.
		w.ForgetDocument(filepath.Join(repo, rel))
		_, _, opened := resolve(rel, src)
		edited := append([]byte(strings.Repeat("\n", 2)), src...)
		ems, _, eparses := resolve(rel, edited)
		if eparses != opened+1 {
			t.Errorf("%s edited: not parsed", rel)
		}
		for _, m := range ems {
			if a := m.Anchors[0]; a.Status != StatusMoved {
				t.Errorf("%s edited: %q is %s, want moved", rel, m.Body, a.Status)
			}
		}
		// A buffer that differs from the indexed content from the start.
		w.ForgetDocument(filepath.Join(repo, rel))
		if _, _, n := resolve(rel, edited); n != eparses+1 {
			t.Errorf("%s opened with changes: not parsed", rel)
		}
	}
}
