// Package idhash maps string ids to numbers (rows, document numbers)
// through a map of the ids' 64-bit hashes (hash/maphash), which holds no
// pointer: the garbage collector does not scan it, where a map keyed by
// 100,000 id strings was scanned at every collection of a long batch
// (docs/benchmarks.md, issue #12). The caller keeps the ids by number
// (IDs) and a hit is checked against them; ids whose hashes collide are
// kept by id.
package idhash

import "hash/maphash"

// IDs gives the id at a number the Map holds.
type IDs interface {
	// ID returns the id at number n, or the error of reading it.
	ID(n int32) (string, error)
}

// Map maps ids to numbers ≥ 0. It is not safe for concurrent use.
type Map struct {
	seed   maphash.Seed
	weak   func(string) uint64 // replaces maphash when set (NewHash)
	num    map[uint64]int32    // hash → number, or shared
	shared map[string]int32    // ids whose hash another id has
}

// shared marks a hash that several ids have (Map.num).
const shared = -1

// New returns an empty Map with room for size ids.
func New(size int) *Map {
	return &Map{seed: maphash.MakeSeed(), num: make(map[uint64]int32, size)}
}

// NewHash is New with hash in place of maphash: tests give a hash of few
// values, so that ids share them.
func NewHash(size int, hash func(string) uint64) *Map {
	m := New(size)
	m.weak = hash
	return m
}

func (m *Map) hash(id string) uint64 {
	if m.weak != nil {
		return m.weak(id)
	}
	return maphash.String(m.seed, id)
}

func (m *Map) hashBytes(id []byte) uint64 {
	if m.weak != nil {
		return m.weak(string(id))
	}
	return maphash.Bytes(m.seed, id)
}

// Add records that id, not in m, is at number n ≥ 0; every id in m must
// be at its number in ids (id's own number need not be there yet). It
// returns the error of ids.ID, read when id's hash is another id's.
func (m *Map) Add(id string, n int32, ids IDs) error {
	return m.add(m.hash(id), id, nil, n, ids)
}

// AddBytes is Add for an id given as bytes (copied only when its hash is
// another id's).
func (m *Map) AddBytes(id []byte, n int32, ids IDs) error {
	return m.add(m.hashBytes(id), "", id, n, ids)
}

func (m *Map) add(h uint64, id string, idb []byte, n int32, ids IDs) error {
	prev, ok := m.num[h]
	if !ok {
		m.num[h] = n
		return nil
	}
	if m.shared == nil {
		m.shared = map[string]int32{}
	}
	if prev != shared { // the first id of this hash moves to shared
		pid, err := ids.ID(prev)
		if err != nil {
			return err
		}
		m.shared[pid], m.num[h] = prev, shared
	}
	if idb != nil {
		id = string(idb)
	}
	m.shared[id] = n
	return nil
}

// Get returns id's number; ok is false when id is not in m. err is the
// error of ids.ID, read to check a hit.
func (m *Map) Get(id string, ids IDs) (n int32, ok bool, err error) {
	n, ok = m.num[m.hash(id)]
	switch {
	case !ok:
		return 0, false, nil
	case n == shared:
		n, ok = m.shared[id]
		return n, ok, nil
	}
	at, err := ids.ID(n)
	if err != nil || at != id { // another id of the same hash
		return 0, false, err
	}
	return n, true, nil
}

// Move records that id, in m, is now at number n.
func (m *Map) Move(id string, n int32) {
	h := m.hash(id)
	if m.num[h] == shared {
		m.shared[id] = n
	} else {
		m.num[h] = n
	}
}

// Delete forgets id, which is in m.
func (m *Map) Delete(id string) {
	h := m.hash(id)
	if m.num[h] == shared {
		delete(m.shared, id)
	} else {
		delete(m.num, h) // no other id has its hash
	}
}

// Shared returns the number of ids kept by id (their hash another id's).
func (m *Map) Shared() int { return len(m.shared) }
