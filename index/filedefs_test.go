package index

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// FileDefs gives the stored record's definitions as File does, field for
// field, except their doc comments (empty), with the record's path as one
// string, and no calls or imports.
func TestFileDefsWithoutDocs(t *testing.T) {
	st, err := OpenStore("/store", vfs.NewMem())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := FileRecord{V: 3, Path: "a/b.go", Lang: "go", Hash: "h", HasError: true,
		Defs: []Definition{
			{Symbol: "s1", Name: "F", Kind: KindFunction, Parent: "p", Path: "a/b.go", Doc: "F does \"things\".\n\tMore.",
				Range: Range{StartLine: 1, EndLine: 3, EndCol: 1, EndByte: 40}, DocLine: 0,
				NameRange: Range{StartLine: 1, StartCol: 5}, SignatureHash: "sig", BodyHash: "body", ContentHash: "content", BodyTokens: 7},
			{Symbol: "s2", Name: "G", Kind: KindFunction, Path: "a/b.go", ContentHash: "c2"},
		},
		Calls:   []Call{{Caller: "s1", Name: "G", Line: 2}},
		Imports: []Import{{Spec: "fmt"}},
	}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.pdb().Set(Key(prefixFile, rec.Path), data, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	got, err := st.FileDefs(rec.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := rec
	want.Calls, want.Imports = nil, nil
	want.Defs = append([]Definition(nil), rec.Defs...)
	for i := range want.Defs {
		want.Defs[i].Doc = ""
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("FileDefs = %+v\nwant %+v", *got, want)
	}
	for i, d := range got.Defs {
		if unsafe.StringData(d.Path) != unsafe.StringData(got.Path) {
			t.Errorf("definition %d: its path is a string of its own, not the record's", i)
		}
	}
	if missing, err := st.FileDefs("nope.go"); missing != nil || err != nil {
		t.Fatalf("FileDefs of a file not indexed = %v, %v", missing, err)
	}
}
