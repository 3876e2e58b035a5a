package idhash

import (
	"fmt"
	"math/rand"
	"testing"
)

// idList is IDs over a slice, numbers as indices.
type idList []string

func (l idList) ID(n int32) (string, error) { return l[n], nil }

// A Map finds each id's number, and no other, through random adds,
// deletes and moves (a delete moves the last number into the gap, as a
// table that keeps its rows dense does), with maphash and with a hash of
// three values most ids share; ids given as bytes too.
func TestMapAsReference(t *testing.T) {
	weak := func(id string) uint64 { return uint64(id[len(id)-1]) % 3 }
	for _, m := range []*Map{New(0), NewHash(0, weak)} {
		var ids idList
		rng := rand.New(rand.NewSource(7))
		for op := range 4000 {
			id := fmt.Sprintf("id%03d", rng.Intn(300))
			n, ok, err := m.Get(id, ids)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !ok && rng.Intn(2) == 0:
				err = m.AddBytes([]byte(id), int32(len(ids)), ids)
				ids = append(ids, id)
			case !ok:
				err = m.Add(id, int32(len(ids)), ids)
				ids = append(ids, id)
			default:
				if ids[n] != id {
					t.Fatalf("op %d: Get(%s) = %d, which holds %s", op, id, n, ids[n])
				}
				last := int32(len(ids) - 1)
				if n != last {
					ids[n] = ids[last]
					m.Move(ids[n], n)
				}
				m.Delete(id)
				ids = ids[:last]
			}
			if err != nil {
				t.Fatal(err)
			}
			if op%50 != 49 {
				continue
			}
			for i := range 300 {
				id := fmt.Sprintf("id%03d", i)
				n, ok, _ := m.Get(id, ids)
				at := -1
				for j, x := range ids {
					if x == id {
						at = j
					}
				}
				if ok != (at >= 0) || ok && int(n) != at {
					t.Fatalf("op %d: Get(%s) = %d, %v; want %d", op, id, n, ok, at)
				}
			}
		}
		if m.weak != nil && m.Shared() == 0 {
			t.Fatal("no id shares a hash")
		}
	}
}

// errIDs fails every read.
type errIDs struct{}

func (errIDs) ID(int32) (string, error) { return "", fmt.Errorf("unreadable") }

// Get and Add return the error of reading the id they check.
func TestMapIDError(t *testing.T) {
	m := NewHash(0, func(string) uint64 { return 1 })
	if err := m.Add("a", 0, errIDs{}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := m.Get("a", errIDs{}); ok || err == nil {
		t.Fatalf("Get with an unreadable id: ok %v, err %v", ok, err)
	}
	if err := m.Add("b", 1, errIDs{}); err == nil {
		t.Fatal("Add sharing a hash with an unreadable id: no error")
	}
}
