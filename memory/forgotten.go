package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/index"
)

// RestoreWindow is how long a forgotten memory can be restored (Restore):
// Forget keeps its record as a tombstone for this long; tombstones older
// than that are dropped by later forgets and cannot be restored.
var RestoreWindow = 7 * 24 * time.Hour

// tombstone is what Forget keeps of a memory (index.Store.Tombstone).
type tombstone struct {
	ForgottenAt time.Time       `json:"forgotten_at"`
	Memory      json.RawMessage `json:"memory"`
}

// ErrNotForgotten is returned (wrapped) by Restore for an id with no
// restorable tombstone.
var ErrNotForgotten = errors.New("no forgotten memory to restore")

// Forget deletes a memory durably and returns it. Its record is kept as a
// tombstone for RestoreWindow (Restore undoes the forget); tombstones
// older than that are dropped in the same write. A project memory's file
// is removed.
func (w *Workspace) Forget(id string) (*Memory, error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	m, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	now := w.now().UTC()
	rec, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode memory %s: %w", m.ID, err)
	}
	data, err := json.Marshal(tombstone{ForgottenAt: now, Memory: rec})
	if err != nil {
		return nil, err
	}
	b := w.Store.NewMemoryBatch()
	err = b.Tombstone(m.ID, data, anchorPaths(m))
	if err == nil {
		err = dropRelations(b, m)
	}
	if err == nil {
		err = w.dropExpiredTombstones(b, now)
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	if err := w.commit(b, nil, []string{m.ID}); err != nil {
		return nil, err
	}
	if err := w.RemoveMemoryFile(m); err != nil {
		w.warn(fmt.Errorf("remove memory file of %s: %w", m.ID, err))
	}
	return m, nil
}

// dropExpiredTombstones adds the removal of tombstones older than
// RestoreWindow (and unreadable ones) to b; those of memories imported
// from git are reduced instead (keepImportTombstone), so import-git never
// brings a forgotten commit back.
func (w *Workspace) dropExpiredTombstones(b *index.MemoryBatch, now time.Time) error {
	var old []string
	kept := map[string][]byte{} // imported from git: kept small for good
	err := w.Store.Tombstones(func(id string, data []byte) error {
		var t tombstone
		if json.Unmarshal(data, &t) != nil || now.Sub(t.ForgottenAt) > RestoreWindow {
			if k := keepImportTombstone(data); k != nil {
				kept[id] = k
			} else {
				old = append(old, id)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range old {
		if err := b.DropTombstone(id); err != nil {
			return err
		}
	}
	for id, data := range kept {
		if err := b.Tombstone(id, data, nil); err != nil {
			return err
		}
	}
	return nil
}

// Restore undoes Forget of memory id (the full id Forget returned) within
// RestoreWindow: the memory comes back as it was when forgotten (a
// project memory's file is written again); the next check re-resolves its
// anchors. It returns an error wrapping ErrNotForgotten when there is no
// tombstone of id (never forgotten, already restored, or forgotten too
// long ago) and an error when a memory with id exists.
func (w *Workspace) Restore(id string) (*Memory, error) {
	id = strings.ToUpper(strings.TrimSpace(id))
	if id == "" {
		return nil, fmt.Errorf("empty memory id")
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if _, err := w.get(id); err == nil {
		return nil, fmt.Errorf("memory %s exists: nothing to restore", id)
	}
	data, err := w.Store.Tombstone(id)
	if errors.Is(err, index.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s (restorable for %s after forget)", ErrNotForgotten, id, RestoreWindow)
	}
	if err != nil {
		return nil, err
	}
	var t tombstone
	var m Memory
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("tombstone of %s: %w", id, err)
	}
	if err := json.Unmarshal(t.Memory, &m); err != nil {
		return nil, fmt.Errorf("tombstone of %s: %w", id, err)
	}
	if w.now().Sub(t.ForgottenAt) > RestoreWindow {
		return nil, fmt.Errorf("%w: %s was forgotten on %s, more than %s ago", ErrNotForgotten, id, t.ForgottenAt.Format("2006-01-02"), RestoreWindow)
	}
	w.stampFile(&m)
	b := w.Store.NewMemoryBatch()
	err = w.putMemory(b, nil, &m)
	if err == nil {
		err = b.DropTombstone(id)
	}
	if err == nil {
		err = w.commit(b, []*Memory{&m}, nil)
	} else {
		b.Close()
	}
	if err != nil {
		_ = w.RemoveMemoryFile(&m)
		return nil, err
	}
	return &m, nil
}
