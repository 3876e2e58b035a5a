package index

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// MaxDefinitionTableBytes bounds the definition table of a store
// (WarmDefinitions) by the stored (JSON) bytes of the file records it
// decodes: a workspace whose records pass it keeps reading them from
// Pebble. Prometheus (973 files) holds about 30 MiB.
const MaxDefinitionTableBytes = 256 << 20

// defTables is a store's in-memory definition table and what keeps it in
// step with the file records: an epoch bumped after every commit that
// writes file records (indexWriter.flush) and the paths those commits
// wrote since the table was last brought up to date.
type defTables struct {
	// enabled is set by WarmDefinitions once the first table is built.
	enabled atomic.Bool
	// epoch counts the commits of file records (filesWritten).
	epoch atomic.Uint64
	// cur is the newest table; it answers while its epoch is epoch's.
	cur atomic.Pointer[defTable]
	// mu guards dirty and serializes table builds.
	mu    sync.Mutex
	dirty map[string]bool
}

// defTable is every stored file record, decoded, and the definition
// sites by name (the keys of prefixName), as of one epoch. It is never
// modified once published: an update builds a new one.
type defTable struct {
	epoch uint64
	files map[string]*FileRecord
	// names holds, for each definition name, its (symbol, path) sites in
	// the order of their prefixName keys (symbol, then path).
	names map[string][]defSite
	// sizes holds the stored (JSON) bytes of each record, bytes their sum.
	sizes map[string]int
	bytes int
}

// defSite is one prefixName key: a symbol defined in a file.
type defSite struct{ symbol, path string }

// WarmDefinitions builds the store's definition table: every file record
// decoded once and held in memory, with its definitions by name, so that
// File, DefsByName and NameCount answer without reading Pebble or
// decoding JSON. A daemon calls it once after its start-up check (a
// search read and decoded whole file records for the graph ranker's
// neighbors and the code hits' definitions: a fifth of a settled daemon
// search's CPU at 100,000 memories, docs/benchmarks.md). From then on,
// every commit of file records (Indexer.Run) marks the paths it wrote,
// and the next read re-decodes only those; a second call does nothing.
// Without a call (a CLI process), nothing changes. When the records pass
// MaxDefinitionTableBytes the table is not kept and nil is returned; an
// error is a failed read of the store.
func (s *Store) WarmDefinitions() error {
	d := &s.defs
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.enabled.Load() {
		return nil
	}
	epoch := d.epoch.Load()
	d.dirty = nil
	t := &defTable{epoch: epoch, files: map[string]*FileRecord{}, sizes: map[string]int{}}
	tooBig := fmt.Errorf("definition table over %d bytes", MaxDefinitionTableBytes)
	err := Scan(s.pdb(), func(rest []string, val []byte) error {
		var r FileRecord
		if err := decodeFileRecord(val, &r); err != nil {
			return fmt.Errorf("corrupt file record: %w", err)
		}
		if t.bytes += len(val); t.bytes > MaxDefinitionTableBytes {
			return tooBig
		}
		t.files[r.Path], t.sizes[r.Path] = &r, len(val)
		return nil
	}, prefixFile)
	if errors.Is(err, tooBig) {
		return nil
	}
	if err != nil {
		return err
	}
	t.index()
	d.cur.Store(t)
	d.enabled.Store(true)
	return nil
}

// filesWritten is called after a commit that wrote or deleted the file
// records of paths: the table is out of step until the next read brings
// those paths up to date (table).
func (s *Store) filesWritten(paths []string) {
	d := &s.defs
	d.mu.Lock()
	defer d.mu.Unlock()
	d.epoch.Add(1)
	if !d.enabled.Load() {
		return // WarmDefinitions reads the store after this commit
	}
	if d.dirty == nil {
		d.dirty = map[string]bool{}
	}
	for _, p := range paths {
		d.dirty[p] = true
	}
}

// table returns the definition table in step with the store, updating it
// first when commits wrote file records since; nil when there is none
// (WarmDefinitions was not called, or the update failed: callers then
// read Pebble).
//
// A table is published with the epoch read before it read the store, and
// a commit bumps the epoch after it is applied, so a table that answers
// holds every commit before its epoch's bump.
func (s *Store) table() *defTable {
	d := &s.defs
	if !d.enabled.Load() {
		return nil
	}
	if t := d.cur.Load(); t != nil && t.epoch == d.epoch.Load() {
		return t
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	old := d.cur.Load()
	epoch := d.epoch.Load()
	if old == nil || !d.enabled.Load() {
		return nil
	}
	if old.epoch == epoch {
		return old
	}
	t := &defTable{epoch: epoch, files: make(map[string]*FileRecord, len(old.files)), sizes: make(map[string]int, len(old.sizes)), bytes: old.bytes}
	for p, r := range old.files {
		t.files[p], t.sizes[p] = r, old.sizes[p]
	}
	for p := range d.dirty {
		t.bytes -= t.sizes[p]
		delete(t.files, p)
		delete(t.sizes, p)
		var n int
		r, err := s.readFile(p, func(val []byte) (*FileRecord, error) {
			var r FileRecord
			if err := decodeFileRecord(val, &r); err != nil {
				return nil, fmt.Errorf("corrupt file record %s: %w", p, err)
			}
			n = len(val)
			return &r, nil
		})
		if err != nil {
			return nil // dirty is kept: the next read tries again
		}
		if r != nil {
			t.files[p], t.sizes[p] = r, n
			t.bytes += n
		}
	}
	d.dirty = nil
	if t.bytes > MaxDefinitionTableBytes {
		d.enabled.Store(false)
		d.cur.Store(nil)
		return nil
	}
	t.index()
	d.cur.Store(t)
	return t
}

// index fills t.names from t.files.
func (t *defTable) index() {
	t.names = map[string][]defSite{}
	for path, r := range t.files {
		for _, def := range r.Defs {
			t.names[def.Name] = append(t.names[def.Name], defSite{def.Symbol, path})
		}
	}
	for name, sites := range t.names {
		sort.Slice(sites, func(i, j int) bool {
			if sites[i].symbol != sites[j].symbol {
				return sites[i].symbol < sites[j].symbol
			}
			return sites[i].path < sites[j].path
		})
		// A symbol defined twice in one file (Go init functions) has one key.
		out := sites[:0]
		for i, s := range sites {
			if i == 0 || s != sites[i-1] {
				out = append(out, s)
			}
		}
		t.names[name] = out
	}
}

// defsByName is Store.lookup(prefixName, name) answered from t: for each
// site in key order, the file's definitions of its symbol, in record
// order.
func (t *defTable) defsByName(name string) []Definition {
	var out []Definition
	for _, site := range t.names[name] {
		for _, d := range t.files[site.path].Defs {
			if d.Symbol == site.symbol {
				out = append(out, d)
			}
		}
	}
	return out
}
