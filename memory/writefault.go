package memory

import (
	"errors"
	"fmt"

	"github.com/gloss-dev/gloss/index"
)

// ErrReadOnly is wrapped by the errors of writes to a workspace whose
// store failed a write (a full disk, an I/O error). Reads keep working.
// Each later write first tries to reopen the store; once the fault has
// cleared (space was freed) writes resume.
var ErrReadOnly = errors.New("workspace is read-only after a failed write")

// commitBatch writes b durably (index.MemoryBatch.Commit: fsync of the
// WAL) before returning: an acknowledged memory survives a crash. On error
// nothing of b is applied, and a write failure makes the workspace
// read-only (see ErrReadOnly). It returns the memory generation b made.
func (w *Workspace) commitBatch(b *index.MemoryBatch) (uint64, error) {
	if w.readOnly() != nil {
		// b belongs to the failed database: move its writes to the
		// reopened one.
		if err := w.writable(); err != nil {
			b.Close()
			return 0, err
		}
		if err := b.Renew(); err != nil {
			b.Close()
			return 0, fmt.Errorf("write store: %w", err)
		}
	}
	gen, err := b.Commit()
	return gen, w.noteWriteFault(err)
}

// readOnly returns the write failure that made the workspace read-only,
// or nil.
func (w *Workspace) readOnly() error {
	w.roMu.Lock()
	defer w.roMu.Unlock()
	return w.roErr
}

// noteWriteFault makes the workspace read-only when err is a failed write
// to the store, and returns err wrapped with ErrReadOnly then (else err).
func (w *Workspace) noteWriteFault(err error) error {
	if err == nil || !errors.Is(err, index.ErrWriteFailed) {
		return err
	}
	w.roMu.Lock()
	w.roErr = err
	w.roMu.Unlock()
	w.warn(fmt.Errorf("%w: %v", ErrReadOnly, err))
	return fmt.Errorf("%w: %v (free disk space or fix the disk; the next write retries)", ErrReadOnly, err)
}

// writable returns nil when writes can go ahead: the workspace is not
// read-only, or reopening its store after the failure succeeded. Else it
// returns an error wrapping ErrReadOnly with the original failure.
func (w *Workspace) writable() error {
	w.roMu.Lock()
	defer w.roMu.Unlock()
	if w.roErr == nil {
		return nil
	}
	if err := w.Store.Reopen(); err != nil {
		return fmt.Errorf("%w: %v; reopening the store failed: %v", ErrReadOnly, w.roErr, err)
	}
	w.roErr = nil
	return nil
}
