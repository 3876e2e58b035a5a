package index

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/gloss-dev/gloss/internal/decodecache"
	segjson "github.com/segmentio/encoding/json"
)

// SchemaVersion is the version of every record gloss writes to Pebble. A
// store written by a newer gloss is refused rather than misread; older
// versions are migrated on open.
const SchemaVersion = 1

// Key prefixes of the Pebble keyspace. Keys are prefix, then parts joined by
// NUL bytes. Values are JSON objects carrying "v" (SchemaVersion). The
// other keyspaces are declared next to their code (records.go, hidden.go,
// forgotten.go, summaries.go, importmark.go, tokenstore.go); every prefix must be
// distinct and listed in TestKeyPrefixesDistinct.
const (
	prefixMeta     = "s" // s\0schema → version
	prefixFile     = "f" // f\0path → FileRecord
	prefixFileMeta = "g" // g\0path → FileMeta (change detection and counts)
	prefixSymbol   = "y" // y\0symbol\0path → ""
	prefixBody     = "b" // b\0bodyhash\0symbol\0path → ""
	prefixName     = "n" // n\0name\0symbol\0path → ""
	prefixRef      = "r" // r\0callee name\0caller symbol\0path → ""
	prefixContains = "c" // c\0parent\0child → ""
	prefixImport   = "i" // i\0import target\0importer path → ""
)

// Store is the Pebble store of record of one workspace: the symbol graph
// (files, definitions, containment and call edges) and the memory records
// of package memory (records.go). It owns every key; no other package
// sees Pebble. It is safe for concurrent use.
type Store struct {
	// db is swapped by Reopen after a write failure.
	db  atomic.Pointer[pebble.DB]
	dir string
	fs  vfs.FS
	// records caches decoded file records (File).
	records *decodecache.Cache[*FileRecord] // newRecordCache
	// defs is the definition table of a daemon (WarmDefinitions).
	defs defTables
	// cacheBytes is the size of the block cache it was opened with
	// (OpenStoreCache), which Reopen keeps.
	cacheBytes int64
	// bulk is set for a store opened with OpenStoreBulk, which Reopen
	// keeps.
	bulk bool
	// readOnly is set for a store opened with OpenStoreReadOnly.
	readOnly bool
}

// pdb returns the current Pebble database.
func (s *Store) pdb() *pebble.DB { return s.db.Load() }

// LockWait is how long OpenStore waits for another process to release the
// store's lock.
var LockWait = 15 * time.Second

// StoreCacheBytes is the size of a store's Pebble block cache (bytes of
// uncompressed blocks; memory is taken as blocks are read, not at open).
// Pebble's default, 8 MiB, held a small part of a store of 100,000
// memories (177 MiB): the daemon's random reads of memory records and
// summaries decompressed a block for most reads (pprof on prometheus,
// issue #15).
const StoreCacheBytes = 64 << 20

// OpenStore opens the Pebble store in dir, creating it only when dir is
// missing or empty: a directory with any Pebble file in it is opened with
// Pebble's must-exist option, so a damaged store (a lost manifest marker)
// is reported, never replaced by an empty one. fs may be nil for the real
// file system (tests pass vfs.NewMem() or an errorfs). It returns an error
// when the directory is locked by another process, the store cannot be
// opened (the error names dir and says to run `gloss doctor`; the
// directory is left untouched) or the store was written by a newer schema.
func OpenStore(dir string, fs vfs.FS) (st *Store, err error) {
	return OpenStoreCache(dir, fs, StoreCacheBytes)
}

// OpenStoreCache is OpenStore with a block cache of cacheBytes bytes
// (uncompressed blocks, taken as blocks are read; 0 or less means
// StoreCacheBytes), for a process whose reads are mostly sequential and
// read once, such as `gloss remember --batch`: there the 64 MiB default
// filled with blocks of file records read once per batch call and made
// about a tenth of the peak resident set. Reopen keeps the size.
func OpenStoreCache(dir string, fs vfs.FS, cacheBytes int64) (st *Store, err error) {
	return openStore(dir, fs, cacheBytes, false)
}

// Bulk-load L0 thresholds of OpenStoreBulk (pebble.Options; Pebble's
// defaults are 4, 500 and 12): a compaction out of level 0 starts at 16
// sublevels (or 2,000 files), writes stall at 48.
const (
	bulkL0CompactionThreshold     = 16
	bulkL0CompactionFileThreshold = 2000
	bulkL0StopWritesThreshold     = 48
)

// storeFormat is the Pebble format major version of a store opened for
// writing: FormatValueSeparation, the newest of Pebble v2.1 (columnar
// blocks, table format Pebblev7, blob files). A store of an older format
// (gloss before 2026-11-28 made FormatFlushableIngest, 13) is ratcheted to
// it when it is opened for writing: Pebble rewrites its format marker,
// not its tables, and a gloss built with the same Pebble (v2.1.7) still
// opens it. A format cannot be lowered again.
const storeFormat = pebble.FormatValueSeparation

// Value separation of a store opened for writing (Pebble's
// ValueSeparationPolicy; docs/benchmarks.md, session 17). Values of
// valueSeparationMin bytes or more, memory records (2.3 KB of JSON on
// prometheus) and their summaries (616 B), are written to blob files when
// a memtable is flushed, and compactions move a reference (a few bytes)
// instead of rewriting the value: a +80,000 batch wrote 291 MB of tables
// and blob files instead of 710 MB, and its compactions took 2.9 CPU-s
// instead of 6.6. The symbol graph's keys have empty values and stay in
// the tables.
//
// maxBlobReferenceDepth bounds how many blob files the values of one
// table may be spread over before a compaction rewrites them into one
// (Pebble sums the depths of the compaction's inputs, one per level-0
// sublevel): 64 lets a bulk store's compaction out of 16 level-0 sublevels
// (bulkL0CompactionThreshold) carry references over several times; with
// Pebble's example of 10 every such compaction rewrote every value. A
// read of a value reads one block of one blob file whatever the depth.
//
// blobGarbageRatio: a blob file is rewritten once half of its values are
// no longer referenced (memories deleted or rewritten) and it is older
// than blobRewriteAge, which bounds the space blob files waste to about
// twice the live values.
const (
	valueSeparationMin    = 512
	maxBlobReferenceDepth = 64
	blobGarbageRatio      = 0.5
	blobRewriteAge        = 5 * time.Minute
)

// keyspaceSpans is the store's Pebble span policy function
// (Options.Experimental.SpanPolicyFunc, called by flushes and compactions
// at the first key of each output table): every keyspace, the keys that
// share a first byte (prefixFile, prefixMemory, prefixSummary, …), is a
// span of its own, so no table written from now on holds keys of two
// keyspaces. Memory keyspaces (a, h, k, l, m, t, u, v, x) interleave with
// the index's (b, c, f, g, i, n, r, s, y, z): a table flushed from a
// memtable of memory writes used to span from prefixAnchor to
// prefixSummary, and each compaction out of level 0 rewrote every index
// table in between although none of its keys changed. On prometheus
// (docs/benchmarks.md, session 22) a first batch of 20,000 compacted 27 MB
// of tables, now under 1 MB (the rest are moves); +80,000 52 MB, now 10
// MB; the `gloss check` after the batch, which compacts what the batch
// left in level 0, took 0.24 s instead of 0.65 s. The cost is more,
// smaller files (177 tables and 200 blob files at 100,000 memories
// instead of 63 and 100) and 6–14 MB more resident memory per process
// (their metadata and blocks). The policy is not stored: a store written
// with it opens with any gloss, and an older store is split as it is
// compacted.
func keyspaceSpans(start []byte) (pebble.SpanPolicy, []byte, error) {
	if len(start) == 0 || start[0] == 0xff {
		return pebble.SpanPolicy{}, nil, nil // the last span: to the end
	}
	return pebble.SpanPolicy{}, []byte{start[0] + 1}, nil
}

// valueSeparation returns the store's value separation policy (Pebble's
// Options.Experimental.ValueSeparationPolicy).
func valueSeparation() pebble.ValueSeparationPolicy {
	return pebble.ValueSeparationPolicy{
		Enabled:               true,
		MinimumSize:           valueSeparationMin,
		MaxBlobReferenceDepth: maxBlobReferenceDepth,
		RewriteMinimumAge:     blobRewriteAge,
		TargetGarbageRatio:    blobGarbageRatio,
	}
}

// OpenStoreBulk is OpenStoreCache for a process that mostly writes, such
// as `gloss remember --batch`: level 0 is compacted into the level below
// after 16 flushed memtables rather than Pebble's default of 4
// (bulkL0CompactionThreshold). A store of gloss's size has one or two
// levels under level 0 (Pebble adds one each time the lowest outgrows
// LBaseMaxBytes, 64 MiB), and each compaction out of level 0 rewrote the
// part of the level below that the flushed tables overlap, which the
// memory index keys (by path, symbol, relation) do almost everywhere:
// 20,000 memories on prometheus rewrote 208 MB in 18 compactions with the
// default, 61 MB in 3 with 16 (docs/benchmarks.md, branch in10). The cost is read amplification of up
// to 16 level-0 tables for reads during the write, and up to 15 tables
// left in level 0, compacted by the next process that opens the store
// for writing. Memory and durability are as with OpenStore: the memtable
// keeps Pebble's default size (4 MiB), and every synced commit is in the
// write-ahead log. Reopen keeps the options.
func OpenStoreBulk(dir string, fs vfs.FS, cacheBytes int64) (st *Store, err error) {
	return openStore(dir, fs, cacheBytes, true)
}

func openStore(dir string, fs vfs.FS, cacheBytes int64, bulk bool) (st *Store, err error) {
	if cacheBytes <= 0 {
		cacheBytes = StoreCacheBytes
	}
	cache := pebble.NewCache(cacheBytes)
	defer cache.Unref() // the database holds its own reference
	opts := &pebble.Options{Logger: quietLogger{}, EventListener: corruptionListener(), Cache: cache}
	opts.FormatMajorVersion = storeFormat
	opts.Experimental.ValueSeparationPolicy = valueSeparation
	opts.Experimental.SpanPolicyFunc = keyspaceSpans
	if bulk {
		opts.L0CompactionThreshold = bulkL0CompactionThreshold
		opts.L0CompactionFileThreshold = bulkL0CompactionFileThreshold
		opts.L0StopWritesThreshold = bulkL0StopWritesThreshold
	}
	if fs != nil {
		opts.FS = fs
	} else {
		fs = vfs.Default
	}
	exists, err := storeHasContent(fs, dir)
	if err != nil {
		return nil, err
	}
	opts.ErrorIfNotExists = exists
	defer Recover(dir, "open store", &err)
	db, err := openWaiting(dir, opts)
	if errors.Is(err, ErrStoreLocked) {
		return nil, err
	}
	if err != nil {
		if exists {
			return nil, openError(dir, err)
		}
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	s := &Store{dir: dir, fs: fs, records: newRecordCache(), cacheBytes: cacheBytes, bulk: bulk}
	s.db.Store(db)
	// Close through s.Close from here on: closing a damaged database can
	// panic too.
	v, err := s.schema()
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	switch {
	case v > SchemaVersion:
		_ = s.Close()
		return nil, fmt.Errorf("store %s has schema version %d, newer than this gloss (%d): upgrade gloss", dir, v, SchemaVersion)
	case v < SchemaVersion:
		b := db.NewBatch()
		_ = b.Set(Key(prefixMeta, "schema"), []byte(strconv.Itoa(SchemaVersion)), nil)
		err := s.Commit(b, pebble.Sync)
		_ = b.Close()
		if err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("write schema version: %w", err)
		}
	}
	return s, nil
}

// ErrStoreLocked is wrapped by the error of OpenStore and
// OpenStoreReadOnly when another process held the store's lock for all
// of LockWait.
var ErrStoreLocked = errors.New("store locked")

// openWaiting opens the Pebble database in dir with opts. Another gloss
// process (a CLI call, a daemon) may hold the store's lock for a moment:
// it waits up to LockWait for it rather than fail at once.
func openWaiting(dir string, opts *pebble.Options) (*pebble.DB, error) {
	deadline := time.Now().Add(LockWait)
	for {
		db, err := pebble.Open(dir, opts)
		if err == nil || !errors.Is(err, syscall.EAGAIN) {
			return db, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("open store %s: another gloss process has held it for %s; try again when it is done: %w", dir, LockWait, ErrStoreLocked)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// OpenStoreReadOnly opens the existing store in dir for reading only
// (Pebble's ReadOnly option; the directory lock is still taken): unlike
// OpenStore it neither flushes the write-ahead log left by the last
// process to a table nor starts compactions, which made opening the
// store the largest part of a CLI search's wall time (a flush with five
// fsyncs and a compaction after every call that recorded accesses).
// Writes to the returned store fail. It fails, and the caller opens the
// store with OpenStore instead, when dir holds no store or a store of
// another schema version (which OpenStore migrates or refuses).
func OpenStoreReadOnly(dir string) (st *Store, err error) {
	exists, err := storeHasContent(vfs.Default, dir)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("open store %s read-only: no store", dir)
	}
	defer Recover(dir, "open store read-only", &err)
	db, err := openWaiting(dir, &pebble.Options{Logger: quietLogger{}, EventListener: corruptionListener(), ReadOnly: true, ErrorIfNotExists: true})
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, fs: vfs.Default, records: newRecordCache(), readOnly: true}
	s.db.Store(db)
	if v, err := s.schema(); err != nil || v != SchemaVersion {
		_ = s.Close()
		return nil, fmt.Errorf("open store %s read-only: schema version %d, want %d (%v)", dir, v, SchemaVersion, err)
	}
	return s, nil
}

func (s *Store) schema() (v int, err error) {
	defer Recover(s.dir, "read schema version", &err)
	val, closer, err := s.pdb().Get(Key(prefixMeta, "schema"))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	defer closer.Close()
	v, err = strconv.Atoi(string(val))
	if err != nil {
		return 0, fmt.Errorf("corrupt schema version %q", val)
	}
	return v, nil
}

// Generation returns the index generation: a counter that Indexer.Run
// increments whenever it adds, changes or removes a file. Anchors remember
// the generation they were resolved at.
func (s *Store) Generation() (gen uint64, err error) {
	defer Recover(s.dir, "read generation", &err)
	val, closer, err := s.pdb().Get(Key(prefixMeta, "gen"))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read generation: %w", err)
	}
	defer closer.Close()
	return strconv.ParseUint(string(val), 10, 64)
}

// Close closes the store. A panic in Pebble while closing is returned as
// an error.
func (s *Store) Close() (err error) {
	defer Recover(s.dir, "close store", &err)
	db := s.pdb()
	if !s.readOnly {
		flushLargeWAL(db)
	}
	return db.Close()
}

// CloseFlushWAL is the size of the write-ahead log (bytes of live data,
// Pebble's Metrics.WAL.Size) above which closing a writable store first
// flushes its memtable to a table. Pebble does not flush at Close: the
// next process that opens the store replays the log into a memtable, and
// a read-only one (OpenStoreReadOnly: every CLI search and context) does
// so at every call without ever flushing it. At 100,000 memories a log
// of 240 KiB left by the last writer cost each CLI search about 8 ms of
// CPU (pprof: DB.replayWAL, memtable inserts; docs/benchmarks.md). The
// next writable opening flushed such a log anyway (Pebble flushes the
// replayed log at Open), so flushing at Close moves that work rather
// than adding to it; a log under this bound (one remember's writes) is
// left to be replayed.
const CloseFlushWAL = 64 << 10

// flushLargeWAL flushes db's memtable when its write-ahead log holds more
// than CloseFlushWAL bytes. A failed flush is not an error of the close:
// the log still holds the writes.
func flushLargeWAL(db *pebble.DB) {
	if db.Metrics().WAL.Size <= CloseFlushWAL {
		return
	}
	_ = db.Flush()
}

// Dir returns the directory of the store.
func (s *Store) Dir() string { return s.dir }

// Key joins a prefix and parts with NUL separators.
func Key(prefix string, parts ...string) []byte {
	n := len(prefix)
	for _, p := range parts {
		n += 1 + len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, prefix...)
	for _, p := range parts {
		b = append(b, 0)
		b = append(b, p...)
	}
	return b
}

// PrefixBounds returns the [lower, upper) bounds of all keys that start with
// Key(prefix, parts...) followed by a NUL separator.
func PrefixBounds(prefix string, parts ...string) (lower, upper []byte) {
	lower = append(Key(prefix, parts...), 0)
	upper = append(Key(prefix, parts...), 1)
	return lower, upper
}

// Scan calls fn with the key parts (after the prefix parts) and value of
// every key under Key(prefix, parts...). The value is only valid during the
// call. Returning an error stops the scan and returns it. A panic inside
// Pebble (a corrupt table) is returned as an error wrapping ErrStorePanic;
// the iterator is closed on every path.
func Scan(db pebble.Reader, fn func(rest []string, val []byte) error, prefix string, parts ...string) (err error) {
	defer Recover("", "read store", &err)
	lo, hi := PrefixBounds(prefix, parts...)
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	defer closeIter(it, &err)
	for it.First(); it.Valid(); it.Next() {
		rest := bytes.Split(it.Key()[len(lo):], []byte{0})
		strs := make([]string, len(rest))
		for i, r := range rest {
			strs[i] = string(r)
		}
		if err := fn(strs, it.Value()); err != nil {
			return err
		}
	}
	return it.Error()
}

// FileRecord is the stored state of one indexed file.
type FileRecord struct {
	V        int          `json:"v"`
	Path     string       `json:"path"`
	Lang     string       `json:"lang"`
	Hash     string       `json:"hash"`    // hex SHA-256 of the content
	Size     int64        `json:"size"`    // bytes
	ModTime  int64        `json:"mtime"`   // UnixNano at indexing
	Indexed  int64        `json:"indexed"` // UnixNano when indexed
	HasError bool         `json:"has_error"`
	Defs     []Definition `json:"defs"`
	Calls    []Call       `json:"calls,omitempty"`
	// Imports are the modules the file imports (records written before
	// imports were recorded have none until the file is parsed again).
	Imports []Import `json:"imports,omitempty"`
	// Tokens is the TokensVersion of the file's token record (tokenstore.go)
	// written with this content; 0 when none was (an older gloss).
	Tokens int `json:"tokv,omitempty"`
}

// File returns the stored record of path, or (nil, nil) when it is not
// indexed. Records are decoded once per stored version (recordCache, or
// the definition table once WarmDefinitions built it): the caller may
// append to the record's slices but must not modify their elements in
// place.
func (s *Store) File(path string) (rec *FileRecord, err error) {
	if t := s.table(); t != nil {
		if r := t.files[path]; r != nil {
			return r.shared(), nil
		}
		return nil, nil
	}
	return s.storedFile(path)
}

// decodeFileRecord decodes the stored JSON of a file record (FileRecord,
// or a part of one: FileDefs, FileMeta) into v as encoding/json's
// Unmarshal does, with github.com/segmentio/encoding/json: its decoder,
// written to encoding/json's rules (embedded fields, unknown keys
// ignored, errors on malformed input) and tested against its test
// suite, decoded prometheus's 979 records 5.3 times faster (0.78 →
// 0.15 s; a first batch decodes them twice, once to train the embedder
// and once to anchor, docs/benchmarks.md). Strings are copied: v keeps
// nothing of val, which Pebble reuses (TestDecodeFileRecordAsStd).
func decodeFileRecord(val []byte, v any) error { return segjson.Unmarshal(val, v) }

// storedFile is File read from Pebble, whether or not a definition table
// is kept; the record it decodes enters the record cache.
func (s *Store) storedFile(path string) (rec *FileRecord, err error) {
	return s.decodeStored(path, true)
}

// replacedFile is storedFile for the indexer's reads of the records it
// replaces or deletes: a cached record is used, but one it decodes is not
// cached, since the write that follows changes the stored bytes and the
// entry would never be read again. Caching them held every re-stated
// record twice (stored bytes and decoded record, about 30 MB on
// prometheus after a checkout touched every file) in the heap of the
// command that indexed first, such as `remember --batch`
// (docs/benchmarks.md, session 21).
func (s *Store) replacedFile(path string) (rec *FileRecord, err error) {
	return s.decodeStored(path, false)
}

// decodeStored reads and decodes the stored record of path, from the
// record cache when it holds the stored bytes, and puts what it decodes
// there when cache is set; (nil, nil) when path is not indexed.
func (s *Store) decodeStored(path string, cache bool) (rec *FileRecord, err error) {
	return s.readFile(path, func(val []byte) (*FileRecord, error) {
		if r, ok := s.records.Get(path, val); ok {
			return r, nil
		}
		var r FileRecord
		if err := decodeFileRecord(val, &r); err != nil {
			return nil, fmt.Errorf("corrupt file record %s: %w", path, err)
		}
		if !cache {
			return &r, nil
		}
		s.records.Put(path, bytes.Clone(val), &r)
		return r.shared(), nil
	})
}

// readFile reads the stored record bytes of path and hands them to
// decode, which must not keep them; (nil, nil) when path is not indexed.
func (s *Store) readFile(path string, decode func(val []byte) (*FileRecord, error)) (rec *FileRecord, err error) {
	defer Recover(s.dir, "read file record "+path, &err)
	val, closer, err := s.pdb().Get(Key(prefixFile, path))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read file record %s: %w", path, err)
	}
	defer closer.Close()
	return decode(val)
}

// FileDefs returns the stored record of path without its calls and
// imports, and its definitions without their doc comments (Doc ""), or
// (nil, nil) when it is not indexed. It decodes the stored bytes each
// time, skipping the calls (most of a record) and the doc comments
// instead of decoding them, and leaves the record cache alone: for a
// reader that reads each file once and keeps what it needs to anchor,
// such as an ingest of many memories, which would otherwise hold every
// record of the workspace twice (stored bytes and decoded calls) in the
// cache, and every doc comment in the heap its collector scans. Each
// definition's Path is the record's path, one string for the file.
func (s *Store) FileDefs(path string) (rec *FileRecord, err error) {
	return s.readFile(path, func(val []byte) (*FileRecord, error) {
		var r struct {
			V        int        `json:"v"`
			Path     string     `json:"path"`
			Lang     string     `json:"lang"`
			Hash     string     `json:"hash"`
			HasError bool       `json:"has_error"`
			Defs     []defNoDoc `json:"defs"`
		}
		if err := decodeFileRecord(val, &r); err != nil {
			return nil, fmt.Errorf("corrupt file record %s: %w", path, err)
		}
		defs := make([]Definition, len(r.Defs))
		for i := range r.Defs {
			defs[i] = r.Defs[i].Definition
			if defs[i].Path == r.Path {
				defs[i].Path = r.Path
			}
		}
		return &FileRecord{V: r.V, Path: r.Path, Lang: r.Lang, Hash: r.Hash, HasError: r.HasError, Defs: defs}, nil
	})
}

// defNoDoc decodes a stored Definition without its doc comment: the
// outer Doc field, shallower than the embedded one, takes the "doc" key
// (encoding/json's rule for embedded fields) and discards it.
type defNoDoc struct {
	Definition
	Doc skipJSON `json:"doc,omitempty"`
}

// skipJSON discards the JSON value it is decoded from.
type skipJSON struct{}

// UnmarshalJSON implements json.Unmarshaler.
func (skipJSON) UnmarshalJSON([]byte) error { return nil }

// Files calls fn for every stored file record in path order.
func (s *Store) Files(fn func(*FileRecord) error) error {
	return Scan(s.pdb(), func(_ []string, val []byte) error {
		var r FileRecord
		if err := decodeFileRecord(val, &r); err != nil {
			return fmt.Errorf("corrupt file record: %w", err)
		}
		return fn(&r)
	}, prefixFile)
}

// FileMeta is the small per-file record used to decide whether a file
// changed and to count files and symbols, without decoding definitions.
type FileMeta struct {
	Path     string `json:"path"`
	Lang     string `json:"lang"`
	Hash     string `json:"hash"`
	Size     int64  `json:"size"`
	ModTime  int64  `json:"mtime"`
	Indexed  int64  `json:"indexed"`
	Defs     int    `json:"defs"`
	HasError bool   `json:"has_error,omitempty"`
	// Tokens is FileRecord.Tokens.
	Tokens int `json:"tokv,omitempty"`
}

// FileMetas returns the FileMeta of every stored file, by path.
func (s *Store) FileMetas() (map[string]FileMeta, error) {
	out := map[string]FileMeta{}
	err := Scan(s.pdb(), func(rest []string, val []byte) error {
		var m FileMeta
		if err := decodeFileRecord(val, &m); err != nil {
			return fmt.Errorf("corrupt file meta %s: %w", rest[0], err)
		}
		out[m.Path] = m
		return nil
	}, prefixFileMeta)
	return out, err
}

// putFile writes rec and its derived keys into b, removing the keys of old
// (the previous record of the same path, may be nil), and the token record
// toks (encodeTokens) when it is not nil.
func putFile(b *pebble.Batch, old, rec *FileRecord, toks []byte) error {
	if old != nil {
		deleteFileKeys(b, old)
	}
	// segmentio/encoding's Marshal writes what encoding/json's does (the
	// records of prometheus, sympy and mypy compared byte for byte) in
	// half the time: the writer encodes every record of an index run.
	data, err := segjson.Marshal(rec)
	if err != nil {
		return err
	}
	if err := b.Set(Key(prefixFile, rec.Path), data, nil); err != nil {
		return err
	}
	meta, err := segjson.Marshal(FileMeta{Path: rec.Path, Lang: rec.Lang, Hash: rec.Hash, Size: rec.Size, ModTime: rec.ModTime, Indexed: rec.Indexed, Defs: len(rec.Defs), HasError: rec.HasError, Tokens: rec.Tokens})
	if err != nil {
		return err
	}
	if err := b.Set(Key(prefixFileMeta, rec.Path), meta, nil); err != nil {
		return err
	}
	if err := putTokens(b, rec.Path, toks); err != nil {
		return err
	}
	for _, d := range rec.Defs {
		setEmptyKey(b, prefixSymbol, d.Symbol, rec.Path)
		setEmptyKey(b, prefixName, d.Name, d.Symbol, rec.Path)
		if d.BodyHash != "" {
			setEmptyKey(b, prefixBody, d.BodyHash, d.Symbol, rec.Path)
		}
		if d.Parent != "" {
			setEmptyKey(b, prefixContains, d.Parent, d.Symbol)
		}
	}
	for _, c := range rec.Calls {
		setEmptyKey(b, prefixRef, c.Name, c.Caller, rec.Path)
	}
	for _, im := range rec.Imports {
		if im.Target != "" {
			setEmptyKey(b, prefixImport, im.Target, rec.Path)
		}
	}
	return nil
}

// setEmptyKey adds to b the set of Key(prefix, parts...) to an empty
// value, the same batch record as b.Set(Key(prefix, parts...), nil, nil),
// with the key written straight into the batch (Batch.SetDeferred) instead
// of a key slice made and copied for each. Its error (an indexed batch's
// index refusing the key) is ignored, as putFile ignored b.Set's.
func setEmptyKey(b *pebble.Batch, prefix string, parts ...string) {
	n := len(prefix)
	for _, p := range parts {
		n += 1 + len(p)
	}
	op := b.SetDeferred(n, 0)
	k := append(op.Key[:0], prefix...)
	for _, p := range parts {
		k = append(k, 0)
		k = append(k, p...)
	}
	_ = op.Finish()
}

func deleteFileKeys(b *pebble.Batch, old *FileRecord) {
	_ = b.Delete(Key(prefixFile, old.Path), nil)
	_ = b.Delete(Key(prefixFileMeta, old.Path), nil)
	for _, d := range old.Defs {
		_ = b.Delete(Key(prefixSymbol, d.Symbol, old.Path), nil)
		_ = b.Delete(Key(prefixName, d.Name, d.Symbol, old.Path), nil)
		if d.BodyHash != "" {
			_ = b.Delete(Key(prefixBody, d.BodyHash, d.Symbol, old.Path), nil)
		}
		if d.Parent != "" {
			_ = b.Delete(Key(prefixContains, d.Parent, d.Symbol), nil)
		}
	}
	for _, c := range old.Calls {
		_ = b.Delete(Key(prefixRef, c.Name, c.Caller, old.Path), nil)
	}
	for _, im := range old.Imports {
		if im.Target != "" {
			_ = b.Delete(Key(prefixImport, im.Target, old.Path), nil)
		}
	}
}

// lookup returns the definitions whose (symbol, path) pairs are listed under
// Key(prefix, parts...): the key parts after it are (symbol, path), or just
// (path) when the symbol is the last of parts (the symbol index).
func (s *Store) lookup(prefix string, parts ...string) ([]Definition, error) {
	type sp struct{ sym, path string }
	var pairs []sp
	err := Scan(s.pdb(), func(rest []string, _ []byte) error {
		switch {
		case len(rest) >= 2:
			pairs = append(pairs, sp{rest[len(rest)-2], rest[len(rest)-1]})
		case len(rest) == 1 && prefix == prefixSymbol && len(parts) == 1:
			pairs = append(pairs, sp{parts[0], rest[0]})
		}
		return nil
	}, prefix, parts...)
	if err != nil {
		return nil, err
	}
	var out []Definition
	files := map[string]*FileRecord{}
	for _, p := range pairs {
		rec, ok := files[p.path]
		if !ok {
			r, err := s.File(p.path)
			if err != nil {
				return nil, err
			}
			rec, files[p.path] = r, r
		}
		if rec == nil {
			continue
		}
		for _, d := range rec.Defs {
			if d.Symbol == p.sym {
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// DefsBySymbol returns every definition of a SCIP symbol in the workspace
// (usually one; Go init functions and redeclarations give more).
func (s *Store) DefsBySymbol(symbol string) ([]Definition, error) {
	return s.lookup(prefixSymbol, symbol)
}

// DefsByBodyHash returns the definitions whose BodyHash equals hash.
func (s *Store) DefsByBodyHash(hash string) ([]Definition, error) {
	if hash == "" {
		return nil, nil
	}
	return s.lookup(prefixBody, hash)
}

// SymbolSites returns the workspace-relative paths of the files that
// define symbol, reading keys only.
func (s *Store) SymbolSites(symbol string) ([]string, error) {
	var out []string
	err := Scan(s.pdb(), func(rest []string, _ []byte) error {
		if len(rest) == 1 {
			out = append(out, rest[0])
		}
		return nil
	}, prefixSymbol, symbol)
	return out, err
}

// Site names one definition site: a SCIP symbol in a file.
type Site struct {
	Symbol string
	Path   string
}

// BodyHashSites returns the (symbol, path) sites whose definition has body
// hash hash, reading keys only (no file records are decoded).
func (s *Store) BodyHashSites(hash string) ([]Site, error) {
	var out []Site
	if hash == "" {
		return nil, nil
	}
	err := Scan(s.pdb(), func(rest []string, _ []byte) error {
		if len(rest) >= 2 {
			out = append(out, Site{Symbol: rest[len(rest)-2], Path: rest[len(rest)-1]})
		}
		return nil
	}, prefixBody, hash)
	return out, err
}

// DefsByName returns the definitions named name (exact, case-sensitive).
func (s *Store) DefsByName(name string) ([]Definition, error) {
	if t := s.table(); t != nil {
		return t.defsByName(name), nil
	}
	return s.lookup(prefixName, name)
}

// NameCount returns the number of definitions named name, counting keys
// only and stopping at limit.
func (s *Store) NameCount(name string, limit int) (int, error) {
	if t := s.table(); t != nil {
		n := len(t.names[name])
		if n > limit {
			n = max(limit, 1) // the scan counts a key before it compares
		}
		return n, nil
	}
	n := 0
	stop := errors.New("limit")
	err := Scan(s.pdb(), func([]string, []byte) error {
		if n++; n >= limit {
			return stop
		}
		return nil
	}, prefixName, name)
	if errors.Is(err, stop) {
		err = nil
	}
	return n, err
}

// Callers returns the SCIP symbols of definitions that call name
// (syntactic: any call whose callee identifier is name).
func (s *Store) Callers(name string) ([]string, error) {
	var out []string
	err := Scan(s.pdb(), func(rest []string, _ []byte) error {
		if len(rest) >= 1 && rest[0] != "" {
			out = append(out, rest[0])
		}
		return nil
	}, prefixRef, name)
	return out, err
}

// Children returns the symbols directly contained in parent.
func (s *Store) Children(parent string) ([]string, error) {
	var out []string
	err := Scan(s.pdb(), func(rest []string, _ []byte) error {
		out = append(out, rest[0])
		return nil
	}, prefixContains, parent)
	return out, err
}

// quietLogger keeps Pebble's informational logging off the CLI's output.
type quietLogger struct{}

// Infof discards Pebble's informational messages.
func (quietLogger) Infof(string, ...interface{}) {}

// Errorf discards Pebble's background error reports; the errors that
// matter are returned by the calls that hit them.
func (quietLogger) Errorf(string, ...interface{}) {}

// Fatalf panics with Pebble's message: Pebble calls it only for
// unrecoverable store states (a corrupt manifest), where continuing could
// lose data.
func (quietLogger) Fatalf(format string, args ...interface{}) {
	panic(fmt.Sprintf(format, args...))
}
