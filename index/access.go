package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// The access keyspace counts reads of memories (a hover that showed one,
// a search or context result, an MCP read) apart from their records, so
// that a read never rewrites a memory record:
//
//	u\0<memory id> → count (uvarint) then last access (varint Unix ns)
//
// Package memory accumulates accesses in memory and adds them here in
// batches (AddAccess), written without fsync: a crash may lose the
// accesses of the last few seconds, never a memory. The statistics of a
// forgotten memory are kept (a restore brings them back); they cost a
// few bytes.
const prefixAccess = "u"

// AccessStat is the access statistics of one memory: how many times it
// was read and when last (zero: never).
type AccessStat struct {
	Count int64
	Last  time.Time
}

// encodeAccess encodes st as the value of an access key.
func encodeAccess(st AccessStat) []byte {
	b := binary.AppendUvarint(nil, uint64(max(st.Count, 0)))
	var last int64
	if !st.Last.IsZero() {
		last = st.Last.UnixNano()
	}
	return binary.AppendVarint(b, last)
}

// decodeAccess decodes an access value; a malformed one is an error.
func decodeAccess(val []byte) (AccessStat, error) {
	n, k := binary.Uvarint(val)
	if k <= 0 {
		return AccessStat{}, errors.New("malformed access count")
	}
	last, k2 := binary.Varint(val[k:])
	if k2 <= 0 {
		return AccessStat{}, errors.New("malformed access time")
	}
	st := AccessStat{Count: int64(n)}
	if last != 0 {
		st.Last = time.Unix(0, last).UTC()
	}
	return st, nil
}

// Access returns the stored access statistics of memory id (zero when it
// was never read or its statistics are unreadable).
func (s *Store) Access(id string) (st AccessStat, err error) {
	defer Recover(s.dir, "read access of "+id, &err)
	val, closer, err := s.pdb().Get(Key(prefixAccess, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return AccessStat{}, nil
	}
	if err != nil {
		return AccessStat{}, fmt.Errorf("read access of memory %s: %w", id, err)
	}
	defer closer.Close()
	st, _ = decodeAccess(val)
	return st, nil
}

// Accesses calls fn with the stored access statistics of every memory
// read at least once, in id order (malformed values are skipped).
func (s *Store) Accesses(fn func(id string, st AccessStat) error) error {
	return Scan(s.pdb(), func(rest []string, val []byte) error {
		st, err := decodeAccess(val)
		if err != nil {
			return nil
		}
		return fn(rest[0], st)
	}, prefixAccess)
}

// AddAccess adds deltas (counts to add, and the latest access time of
// each) to the stored statistics in one batch, without fsync. It neither
// advances the store generation nor touches memory records. Callers
// serialize AddAccess calls (it reads, then writes).
func (s *Store) AddAccess(deltas map[string]AccessStat) (err error) {
	if len(deltas) == 0 {
		return nil
	}
	defer Recover(s.dir, "write access", &err)
	b := s.pdb().NewBatch()
	defer b.Close()
	for id, d := range deltas {
		st, err := s.Access(id)
		if err != nil {
			return err
		}
		st.Count += d.Count
		if d.Last.After(st.Last) {
			st.Last = d.Last
		}
		if err := b.Set(Key(prefixAccess, id), encodeAccess(st), nil); err != nil {
			return err
		}
	}
	return s.Commit(b, pebble.NoSync)
}
