package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cockroachdb/pebble/v2"

	"github.com/gloss-dev/gloss/index"
)

// Memory keys: m\0<id> → Memory JSON; a\0<path>\0<id> → "" (anchor path
// index for reverse lookup).
const (
	prefixMemory = "m"
	prefixAnchor = "a"
)

// ErrNotFound is returned (wrapped) for an unknown memory id.
var ErrNotFound = errors.New("memory not found")

// Get returns the memory with id, or an error wrapping ErrNotFound. A
// unique id prefix (at least 6 characters) is accepted too.
func (w *Workspace) Get(id string) (*Memory, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, fmt.Errorf("empty memory id")
	}
	m, err := w.get(id)
	if err == nil || !errors.Is(err, ErrNotFound) || len(id) < 6 {
		return m, err
	}
	var found []*Memory
	err = index.Scan(w.Store.DB(), func(rest []string, val []byte) error {
		if strings.HasPrefix(rest[0], strings.ToUpper(id)) {
			var mm Memory
			if err := json.Unmarshal(val, &mm); err != nil {
				return err
			}
			found = append(found, &mm)
		}
		return nil
	}, prefixMemory)
	if err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("memory id prefix %s is ambiguous (%d memories)", id, len(found))
}

func (w *Workspace) get(id string) (m *Memory, err error) {
	defer index.Recover(w.Store.Dir(), "read memory "+id, &err)
	val, closer, err := w.Store.DB().Get(index.Key(prefixMemory, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("read memory %s: %w", id, err)
	}
	defer closer.Close()
	return decodeMemory(id, val)
}

// List returns every memory in id (creation) order. A store that cannot
// be read gives an error naming it.
func (w *Workspace) List() ([]*Memory, error) {
	var out []*Memory
	err := index.Scan(w.Store.DB(), func(rest []string, val []byte) error {
		m, err := decodeMemory(rest[0], val)
		if err != nil {
			return err
		}
		out = append(out, m)
		return nil
	}, prefixMemory)
	if err != nil {
		return nil, fmt.Errorf("list memories in %s: %w", w.Store.Dir(), err)
	}
	return out, nil
}

// putMemory adds m and its anchor path index entries to b, replacing those
// of old (may be nil).
func putMemory(b *pebble.Batch, old, m *Memory) error {
	if old != nil {
		for _, a := range old.Anchors {
			if err := b.Delete(index.Key(prefixAnchor, a.Path, old.ID), nil); err != nil {
				return err
			}
		}
	}
	m.V = SchemaVersion
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode memory %s: %w", m.ID, err)
	}
	if err := b.Set(index.Key(prefixMemory, m.ID), data, nil); err != nil {
		return err
	}
	for _, a := range m.Anchors {
		if err := b.Set(index.Key(prefixAnchor, a.Path, m.ID), nil, nil); err != nil {
			return err
		}
	}
	return nil
}

func deleteMemory(b *pebble.Batch, m *Memory) error {
	for _, a := range m.Anchors {
		if err := b.Delete(index.Key(prefixAnchor, a.Path, m.ID), nil); err != nil {
			return err
		}
	}
	return b.Delete(index.Key(prefixMemory, m.ID), nil)
}

// idsAtPath returns the ids of memories with an anchor in path.
func (w *Workspace) idsAtPath(path string) ([]string, error) {
	var ids []string
	err := index.Scan(w.Store.DB(), func(rest []string, _ []byte) error {
		ids = append(ids, rest[0])
		return nil
	}, prefixAnchor, path)
	return ids, err
}
