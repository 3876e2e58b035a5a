package index

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/cockroachdb/pebble/v2"
)

// Two keyspaces let `gloss check` work without reading whole memory
// records (package memory encodes both values):
//
//	v\0<id>    → the memory's summary (what check prints: title, type,
//	             anchor places and statuses; a few hundred bytes)
//	k\0<path>  → the check state of a file with anchors: its content hash
//	             at the last check and whether anchors in it were stale
//
// A memory batch that puts or deletes a memory deletes the check state of
// every path the memory is or was anchored in, so the next check looks at
// those paths again. The meta key sumgen is the memory generation up to
// which every memory had a summary: a store written by a gloss without
// summaries (whose commits do not advance sumgen) is detected by
// SummariesCurrent and rebuilt by the caller.
const (
	prefixSummary    = "v"
	prefixCheckState = "k"
)

// PutSummary stores the summary of memory id (written with its record by
// Put, removed by Delete and Hide).
func (b *MemoryBatch) PutSummary(id string, data []byte) error {
	return b.b.Set(Key(prefixSummary, id), data, nil)
}

// PutCheckState stores the check state of the workspace-relative path.
func (b *MemoryBatch) PutCheckState(path string, data []byte) error {
	return b.b.Set(Key(prefixCheckState, path), data, nil)
}

// MarkSummariesCurrent records, at Commit, that every memory has a
// summary (after a rebuild of all summaries in this batch).
func (b *MemoryBatch) MarkSummariesCurrent() { b.rebuilt = true }

// SetSummaryFormat records format (a number the caller defines) as the
// encoding of every summary, with the rebuild that re-encoded them all
// (meta key sumfmt; 0 when never set).
func (b *MemoryBatch) SetSummaryFormat(format uint64) error {
	return b.b.Set(Key(prefixMeta, "sumfmt"), []byte(strconv.FormatUint(format, 10)), nil)
}

// SummaryFormat returns the format SetSummaryFormat last recorded (0 for
// a store whose summaries were never re-encoded).
func (s *Store) SummaryFormat() (uint64, error) { return s.metaUint("sumfmt") }

// invalidate deletes the check states of paths.
func (b *MemoryBatch) invalidate(paths []string) error {
	for _, p := range paths {
		if err := b.b.Delete(Key(prefixCheckState, p), nil); err != nil {
			return err
		}
	}
	return nil
}

// commitSummaryGen sets sumgen to gen, the generation the batch makes,
// when summaries were current before it (or the batch rebuilt them).
func (b *MemoryBatch) commitSummaryGen(gen uint64) error {
	if !b.rebuilt {
		cur, err := b.s.metaUint("sumgen")
		if err != nil || cur != gen-1 {
			return err
		}
	}
	return b.b.Set(Key(prefixMeta, "sumgen"), []byte(strconv.FormatUint(gen, 10)), nil)
}

// SummariesCurrent reports whether every memory has a current summary:
// every memory batch since the last rebuild was written by a gloss that
// keeps summaries.
func (s *Store) SummariesCurrent() (bool, error) {
	gen, err := s.MemoryGeneration()
	if err != nil {
		return false, err
	}
	sg, err := s.metaUint("sumgen")
	return err == nil && sg == gen && gen > 0, err
}

func (s *Store) metaUint(name string) (v uint64, err error) {
	defer Recover(s.dir, "read "+name, &err)
	val, closer, err := s.pdb().Get(Key(prefixMeta, name))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", name, err)
	}
	defer closer.Close()
	return strconv.ParseUint(string(val), 10, 64)
}

// Summaries calls fn with every memory summary in id order; data is only
// valid during the call.
func (s *Store) Summaries(fn func(id string, data []byte) error) (err error) {
	defer Recover(s.dir, "read memory summaries", &err)
	return Scan(s.pdb(), func(rest []string, val []byte) error { return fn(rest[0], val) }, prefixSummary)
}

// CheckStates returns the stored check state of every path, by path
// (values are copies).
func (s *Store) CheckStates() (out map[string][]byte, err error) {
	defer Recover(s.dir, "read check states", &err)
	out = map[string][]byte{}
	err = Scan(s.pdb(), func(rest []string, val []byte) error {
		out[rest[0]] = append([]byte(nil), val...)
		return nil
	}, prefixCheckState)
	return out, err
}

// AnchorPaths returns every workspace-relative path some memory is
// anchored in, sorted, reading one path index key per path: after the
// first key of a path (a\0<path>\0<id>) the iterator seeks past the
// path's other keys (a\0<path>\1), so 100,000 memories in 1,000 files
// cost 1,000 seeks rather than 100,000 steps.
func (s *Store) AnchorPaths() (paths []string, err error) {
	defer Recover(s.dir, "read anchor paths", &err)
	lo, hi := PrefixBounds(prefixAnchor)
	it, err := s.pdb().NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, err
	}
	defer closeIter(it, &err)
	for valid := it.First(); valid; {
		rest := it.Key()[len(lo):]
		end := bytes.IndexByte(rest, 0)
		if end < 0 {
			end = len(rest)
		}
		p := string(rest[:end])
		paths = append(paths, p)
		_, next := PrefixBounds(prefixAnchor, p)
		valid = it.SeekGE(next)
	}
	return paths, it.Error()
}

// BodyHashIndex returns every definition site by body hash (the whole
// b keyspace, keys only): what BodyHashSites answers for one hash, for
// callers that ask for thousands.
func (s *Store) BodyHashIndex() (out map[string][]Site, err error) {
	defer Recover(s.dir, "read body hashes", &err)
	out = map[string][]Site{}
	err = Scan(s.pdb(), func(rest []string, _ []byte) error {
		if len(rest) >= 3 {
			h := rest[0]
			out[h] = append(out[h], Site{Symbol: rest[len(rest)-2], Path: rest[len(rest)-1]})
		}
		return nil
	}, prefixBody)
	return out, err
}

// Summary returns a copy of the summary of memory id, or an error
// wrapping ErrNotFound when it has none (check SummariesCurrent before
// relying on every memory having one).
func (s *Store) Summary(id string) (data []byte, err error) {
	defer Recover(s.dir, "read summary of memory "+id, &err)
	val, closer, err := s.pdb().Get(Key(prefixSummary, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, fmt.Errorf("summary of memory %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read summary of memory %s: %w", id, err)
	}
	defer closer.Close()
	return append([]byte(nil), val...), nil
}

// CheckState returns a copy of the stored check state of the
// workspace-relative path, or nil when it has none (never checked, or a
// memory write touched the path since).
func (s *Store) CheckState(path string) (data []byte, err error) {
	defer Recover(s.dir, "read check state of "+path, &err)
	val, closer, err := s.pdb().Get(Key(prefixCheckState, path))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read check state of %s: %w", path, err)
	}
	defer closer.Close()
	return append([]byte(nil), val...), nil
}

// CheckStatesOf returns copies of the stored check states of paths that
// have one (CheckState), by path: one iterator seeking to each path in
// order, where a CheckState per path made a new iterator over every table
// each time (0.85 CPU-s of a +80,000 batch, once per path per chunk:
// pprof, docs/benchmarks.md).
func (s *Store) CheckStatesOf(paths []string) (out map[string][]byte, err error) {
	defer Recover(s.dir, "read check states", &err)
	sorted := slices.Clone(paths)
	slices.Sort(sorted)
	lo, hi := PrefixBounds(prefixCheckState)
	it, err := s.pdb().NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, err
	}
	defer closeIter(it, &err)
	out = make(map[string][]byte, len(paths))
	var key []byte
	for i, p := range sorted {
		if i > 0 && p == sorted[i-1] {
			continue
		}
		key = append(append(key[:0], lo...), p...)
		if it.SeekGE(key) && bytes.Equal(it.Key(), key) {
			val, err := it.ValueAndErr()
			if err != nil {
				return nil, fmt.Errorf("read check state of %s: %w", p, err)
			}
			if v := append([]byte(nil), val...); v != nil { // as CheckState: an empty value is none
				out[p] = v
			}
		}
	}
	return out, it.Error()
}

// HasAnchorsAt reports whether some stored memory has an anchor in the
// workspace-relative path (the first key of its path index entries).
func (s *Store) HasAnchorsAt(path string) (ok bool, err error) {
	defer Recover(s.dir, "read anchors of "+path, &err)
	lo, hi := PrefixBounds(prefixAnchor, path)
	it, err := s.pdb().NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return false, err
	}
	defer closeIter(it, &err)
	return it.First(), it.Error()
}
