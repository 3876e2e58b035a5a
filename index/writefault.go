package index

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// ErrWriteFailed is wrapped by the errors of Commit: the disk refused a
// write (ENOSPC, EIO, EROFS, a failed fsync). Pebble treats such a failure
// as fatal for the open database: no later write can succeed until the
// store is reopened (Reopen), which recovers the acknowledged state from
// the write-ahead log.
var ErrWriteFailed = errors.New("write to the store failed")

// Commit writes b with opt (pebble.Sync for durability). A failure,
// returned or panicked by Pebble, is returned as an error wrapping
// ErrWriteFailed and naming the store; nothing of b is acknowledged then.
// The batch is not closed.
func (s *Store) Commit(b *pebble.Batch, opt *pebble.WriteOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: store %s: %v", ErrWriteFailed, s.dir, r)
		}
	}()
	if err := b.Commit(opt); err != nil {
		return fmt.Errorf("%w: store %s: %v", ErrWriteFailed, s.dir, err)
	}
	return nil
}

// Reopen closes the Pebble database and opens it again, after a write
// failure made it unusable. Reads that run meanwhile fail with errors (a
// closed database panics; the read paths recover). When the store cannot
// be opened for writing (the disk is still full), it is opened read-only,
// so reads work, and the error is returned; Reopen may be retried.
func (s *Store) Reopen() error {
	old := s.pdb()
	func() {
		defer func() { _ = recover() }()
		_ = old.Close()
	}()
	ns, err := openStore(s.dir, s.fs, s.cacheBytes, s.bulk)
	if err == nil {
		s.db.Store(ns.pdb())
		return nil
	}
	ro, rerr := s.openReadOnly()
	if rerr != nil {
		return fmt.Errorf("%w; opening it read-only failed too: %v", err, rerr)
	}
	s.db.Store(ro)
	return err
}

// openReadOnly opens the store's database read-only.
func (s *Store) openReadOnly() (db *pebble.DB, err error) {
	defer Recover(s.dir, "open store read-only", &err)
	return pebble.Open(s.dir, &pebble.Options{Logger: quietLogger{}, EventListener: corruptionListener(), FS: s.fs, ReadOnly: true, ErrorIfNotExists: true})
}
