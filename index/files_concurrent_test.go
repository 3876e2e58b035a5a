package index

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// FilesConcurrent passes every record with its position in Files' order,
// for any number of goroutines, and returns the error Files returns: that
// of the first corrupt record in path order, or fn's first in that order.
func TestFilesConcurrentOrder(t *testing.T) {
	st, err := OpenStore("/store", vfs.NewMem())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(path string, val []byte) {
		if err := st.pdb().Set(Key(prefixFile, path), val, pebble.Sync); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3*filesChunk + 5 {
		rec := FileRecord{Path: fmt.Sprintf("p/%04d.go", i), Lang: "go", Defs: []Definition{{Name: fmt.Sprint("d", i)}}}
		data, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		put(rec.Path, data)
	}
	var want []string
	if err := st.Files(func(r *FileRecord) error { want = append(want, r.Path+" "+r.Defs[0].Name); return nil }); err != nil {
		t.Fatal(err)
	}
	concurrent := func(n int, fn func(i int, r *FileRecord) error) ([]string, error) {
		var mu sync.Mutex
		got := make([]string, len(want))
		err := st.FilesConcurrent(n, func(i int, r *FileRecord) error {
			mu.Lock()
			got[i] = r.Path + " " + r.Defs[0].Name
			mu.Unlock()
			return fn(i, r)
		})
		return got, err
	}
	for _, n := range []int{0, 1, 2, 5} {
		got, err := concurrent(n, func(int, *FileRecord) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%d goroutines: records %v, want %v", n, got, want)
		}
	}
	// fn's error of the first record in order, though later ones fail too.
	for _, n := range []int{1, 3} {
		_, err := concurrent(n, func(i int, r *FileRecord) error {
			if i%filesChunk == 7 {
				return fmt.Errorf("fn failed at %s", r.Path)
			}
			return nil
		})
		if err == nil || err.Error() != "fn failed at p/0007.go" {
			t.Fatalf("%d goroutines: error %v, want fn's at p/0007.go", n, err)
		}
	}
	put("p/0100.go", []byte("{bad"))
	put("p/0150.go", []byte("[]"))
	wantErr := st.Files(func(*FileRecord) error { return nil })
	if wantErr == nil {
		t.Fatal("Files read corrupt records")
	}
	for _, n := range []int{1, 2, 4} {
		if _, err := concurrent(n, func(int, *FileRecord) error { return nil }); err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("%d goroutines: error %v, want %v", n, err, wantErr)
		}
	}
}
