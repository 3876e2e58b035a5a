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

// decodeFileRecord decodes what encoding/json encoded as
// encoding/json.Unmarshal decodes it, into a FileRecord, FileDefs' shape
// and a FileMeta (strings needing escapes, non-ASCII and invalid-looking
// text, empty and absent slices, extreme numbers, unknown keys), keeps
// no byte of its input (overwritten after), and fails where
// encoding/json fails.
func TestDecodeFileRecordAsStd(t *testing.T) {
	recs := []FileRecord{
		{V: SchemaVersion, Path: "a/ü ñ/日本.go", Lang: "go", Hash: "0f", Size: 1 << 40, ModTime: -1, Indexed: 1<<63 - 1, HasError: true, Tokens: 2,
			Defs: []Definition{
				{Symbol: "scip-go gomod x . `x/y`/T#M().", Name: "M", Kind: KindMethod, Parent: "scip-go gomod x . `x/y`/T#", Path: "a/ü ñ/日本.go",
					Doc:   "Quotes \" backslash \\ <b>&amp;</b> \u2028 \u2029 \t tab \x01 control 😀",
					Range: Range{StartLine: 10, StartCol: 2, EndLine: 20, EndCol: 1, StartByte: 100, EndByte: 400}, DocLine: 8,
					NameRange: Range{StartLine: 10, StartCol: 7, EndLine: 10, EndCol: 8}, SignatureHash: "s", BodyHash: "b", ContentHash: "c", BodyTokens: 42},
				{Symbol: "", Name: "", Kind: KindClass, Path: "other.go"},
			},
			Calls:   []Call{{Caller: "c", Name: "n", Line: 3}, {}},
			Imports: []Import{{Spec: "fmt"}},
		},
		{Path: "empty.py", Lang: "python", Defs: []Definition{}},
		{Path: "none.ts"},
	}
	for _, rec := range recs {
		data, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data[:len(data)-1], []byte(`,"unknown":{"x":[1,2,{"y":null}]}}`)...)
		for _, v := range []func() any{
			func() any { return new(FileRecord) },
			func() any {
				return new(struct {
					Path string     `json:"path"`
					Defs []defNoDoc `json:"defs"`
				})
			},
		} {
			want, got := v(), v()
			if err := json.Unmarshal(data, want); err != nil {
				t.Fatal(err)
			}
			buf := append([]byte(nil), data...)
			if err := decodeFileRecord(buf, got); err != nil {
				t.Fatalf("%s: %v", rec.Path, err)
			}
			for i := range buf {
				buf[i] = 'x'
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: decoded %+v\nencoding/json %+v", rec.Path, got, want)
			}
		}
	}
	meta, _ := json.Marshal(FileMeta{Path: "p/ö.go", Lang: "go", Hash: "h", Size: 7, ModTime: -5, Indexed: 9, Defs: 3, HasError: true, Tokens: 2})
	var m1, m2 FileMeta
	if err := json.Unmarshal(meta, &m1); err != nil {
		t.Fatal(err)
	}
	if err := decodeFileRecord(meta, &m2); err != nil || m1 != m2 {
		t.Fatalf("file meta: %+v, %v; want %+v", m2, err, m1)
	}
	for _, bad := range []string{``, `{`, `{"path": 3}`, `{"defs": {}}`, `{"v": 1} x`, `[1]`, `{"size": 1e400}`} {
		var a, b FileRecord
		errStd, err := json.Unmarshal([]byte(bad), &a), decodeFileRecord([]byte(bad), &b)
		if (errStd == nil) != (err == nil) {
			t.Errorf("%q: encoding/json %v, decodeFileRecord %v", bad, errStd, err)
		}
	}
}
