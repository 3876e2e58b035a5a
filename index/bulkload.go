package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sync/errgroup"
)

// bulkLimitBytes bounds the batch bytes (Pebble's batch encoding: keys,
// values and a few bytes per entry) a bulk run holds before it ingests
// them (ingestBatches): a Python tree of 668 files (10.75 MiB) made
// 36 MB of keys and values, so trees of that size are written once.
var bulkLimitBytes = 64 << 20 // a variable for tests

// ingestFilePrefix begins the names of the tables ingestBatches writes
// into the store's directory before Pebble's Ingest links them in; a
// file left by a process that died in between is removed by the next
// bulk run (Pebble ignores names it did not make).
const ingestFilePrefix = "gloss-ingest-"

// errNotSets is returned by ingestBatches when a batch holds anything
// but point sets (a delete of an earlier record): the caller commits
// the batches instead.
var errNotSets = errors.New("batch holds more than point sets")

// ingestSeq numbers the tables ingestBatches writes in this process.
var ingestSeq atomic.Uint64

// ingestBatches writes the point sets of batches (Batch.Repr of batches
// not committed; later sets of a key win, as they would in commits in
// order) into the store as sorted
// tables that Pebble's Ingest (DB.Ingest: hard-linked into the store,
// one sequence number for all) places at the lowest level whose keys
// they do not overlap. On a store with none of the keys in range they
// go to the bottom level, so that no flush or compaction rewrites them:
// a commit writes them to the write-ahead log, the memtable, an L0
// table, then compactions rewrite them again as L0 grows. One table is
// written per first key byte (keyspace, store.go), so a keyspace with
// no stored keys never overlaps another keyspace's keys; the keyspaces
// are sorted and written on up to GOMAXPROCS goroutines at once
// (golang.org/x/sync/errgroup), as an index run's parses wait for the
// ingest. It returns errNotSets, before writing anything, when a batch
// holds a delete, any other kind of entry or an empty key; other errors
// wrap ErrWriteFailed (a table could not be written or ingested: nothing
// of the batches is in the store then). The reprs are not modified.
func (s *Store) ingestBatches(ctx context.Context, batches [][]byte) (err error) {
	// spaces[c] are the sets of the keys that begin with the byte c, in
	// batch order: counted first, so that each is allocated once.
	var spaces [256][]ingestEntry
	var counts [256]int
	n := 0
	for pass := range 2 {
		for _, b := range batches {
			r := batchrepr.Read(b)
			for {
				kind, k, v, ok, err := r.Next()
				if err != nil {
					return fmt.Errorf("read batch: %w", err)
				}
				if !ok {
					break
				}
				if kind != pebble.InternalKeyKindSet || len(k) == 0 {
					return errNotSets
				}
				if pass == 0 {
					counts[k[0]]++
					continue
				}
				spaces[k[0]] = append(spaces[k[0]], ingestEntry{k, v, n})
				n++
			}
		}
		if pass == 0 {
			for c, m := range counts {
				if m > 0 {
					spaces[c] = make([]ingestEntry, 0, m)
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: store %s: ingest: %v", ErrWriteFailed, s.dir, r)
		}
	}()
	db := s.pdb()
	s.removeIngestFiles()
	var paths [256]string
	defer func() {
		for _, p := range paths {
			if p != "" {
				_ = s.fs.Remove(p)
			}
		}
	}()
	opts := &pebble.Options{}
	opts.EnsureDefaults()
	wo := opts.MakeWriterOptions(0, db.TableFormat())
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for c := range spaces {
		if len(spaces[c]) == 0 {
			continue
		}
		p := s.fs.PathJoin(s.dir, fmt.Sprintf("%s%d.sst", ingestFilePrefix, ingestSeq.Add(1)))
		paths[c] = p
		g.Go(func() error { return s.writeIngestTable(p, spaces[c], wo) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	var ingest []string
	for _, p := range paths {
		if p != "" {
			ingest = append(ingest, p)
		}
	}
	if err := db.Ingest(ctx, ingest); err != nil {
		return fmt.Errorf("%w: store %s: ingest: %v", ErrWriteFailed, s.dir, err)
	}
	return nil
}

// ingestEntry is one point set of ingestBatches: seq orders the sets of
// a batch run (a later set of a key wins).
type ingestEntry struct {
	key, value []byte
	seq        int
}

// writeIngestTable sorts entries (the sets of one keyspace) by key, the
// later set of equal keys last, and writes the table at path with the
// last set of each key; errors (a panic of the writer included) wrap
// ErrWriteFailed.
func (s *Store) writeIngestTable(path string, entries []ingestEntry, wo sstable.WriterOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: store %s: write table: %v", ErrWriteFailed, s.dir, r)
		}
	}()
	slices.SortFunc(entries, func(a, b ingestEntry) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return a.seq - b.seq
	})
	f, err := s.fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return fmt.Errorf("%w: store %s: create table: %v", ErrWriteFailed, s.dir, err)
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), wo)
	for i, e := range entries {
		if i+1 < len(entries) && bytes.Equal(e.key, entries[i+1].key) {
			continue // a later set of the same key wins
		}
		if err := w.Set(e.key, e.value); err != nil {
			_ = w.Close()
			return fmt.Errorf("%w: store %s: write table: %v", ErrWriteFailed, s.dir, err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%w: store %s: write table: %v", ErrWriteFailed, s.dir, err)
	}
	return nil
}

// removeIngestFiles removes tables of ingestBatches that a process left
// in the store's directory (it died before removing them); errors are
// ignored (a file that stays is only disk space).
func (s *Store) removeIngestFiles() {
	names, err := s.fs.List(s.dir)
	if err != nil {
		return
	}
	for _, n := range names {
		if strings.HasPrefix(n, ingestFilePrefix) {
			_ = s.fs.Remove(s.fs.PathJoin(s.dir, n))
		}
	}
}
