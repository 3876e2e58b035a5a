package memory

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gloss-dev/gloss/index"
)

// DoctorReport is what Doctor found and did.
type DoctorReport struct {
	Root      string `json:"root"`
	ProjectID string `json:"project_id"`
	DataDir   string `json:"data_dir"`
	// Store is the check (and repair) of the Pebble store.
	Store *index.StoreCheck `json:"store"`
	// Memories is the number of memory records that decode; Corrupt lists
	// the errors of those that do not.
	Memories int      `json:"memories"`
	Corrupt  []string `json:"corrupt,omitempty"`
	// SearchRebuilt reports that the derived full-text index was deleted
	// and rebuilt from the store.
	SearchRebuilt bool `json:"search_rebuilt"`
	// Problems lists what is still wrong; empty means healthy.
	Problems []string `json:"problems,omitempty"`
}

// OK reports whether Doctor left the workspace healthy.
func (r *DoctorReport) OK() bool { return len(r.Problems) == 0 }

// projectDir returns the workspace root of dir (FindRoot), its project id
// and its data directory under opts.Home (or DataHome).
func projectDir(dir string, opts Options) (root, id, pdir string, err error) {
	root, err = FindRoot(dir)
	if err != nil {
		return "", "", "", err
	}
	home := opts.Home
	if home == "" {
		if home, err = DataHome(); err != nil {
			return "", "", "", err
		}
	}
	id = ProjectID(root)
	return root, id, filepath.Join(home, "projects", id), nil
}

// Doctor checks the store of the workspace containing dir and repairs what
// it safely can, in this order: back up the Pebble store (a checkpoint, or
// a file copy when it does not open) under <data dir>/backups/<time>;
// recover a lost manifest marker (index.CheckStore); decode every memory;
// delete and rebuild the derived full-text index. It never deletes the
// store. The error is for failures of the check itself (for example the
// store is held by a running daemon); problems found are in the report.
func Doctor(dir string, opts Options) (*DoctorReport, error) {
	root, id, pdir, err := projectDir(dir, opts)
	if err != nil {
		return nil, err
	}
	r := &DoctorReport{Root: root, ProjectID: id, DataDir: pdir}
	if _, err := os.Stat(pdir); os.IsNotExist(err) {
		r.Store = &index.StoreCheck{Dir: filepath.Join(pdir, "pebble"), OK: true}
		return r, nil
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	backup := filepath.Join(pdir, "backups", now().UTC().Format("20060102T150405.000000000Z"))
	r.Store, err = index.CheckStore(filepath.Join(pdir, "pebble"), backup)
	if err != nil {
		return nil, err
	}
	r.Problems = append(r.Problems, r.Store.Problems...)
	if !r.Store.OK {
		return r, nil
	}
	w, err := Open(root, opts)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return r, nil
	}
	defer w.Close()
	err = w.Store.Memories(func(id string, val []byte) error {
		if _, err := decodeMemory(id, val); err != nil {
			r.Corrupt = append(r.Corrupt, err.Error())
		} else {
			r.Memories++
		}
		return nil
	})
	if err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("read memories: %v", err))
		return r, nil
	}
	r.Problems = append(r.Problems, r.Corrupt...)
	// The search indexes are derived from the store: rebuild them from
	// scratch (the code-symbol index at its next use).
	_ = w.closeSearch()
	_ = w.closeCode()
	w.code.mu.Lock()
	_ = os.RemoveAll(filepath.Join(pdir, "bluge-code"))
	w.code.mu.Unlock()
	w.searchMu.Lock()
	rmErr := os.RemoveAll(filepath.Join(pdir, memoryTextDir))
	w.searchMu.Unlock()
	if rmErr != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("delete search index: %v", rmErr))
		return r, nil
	}
	if len(r.Corrupt) == 0 {
		if err := w.OpenSearch(); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("rebuild search index: %v", err))
			return r, nil
		}
		r.SearchRebuilt = true
	}
	return r, nil
}

// decodeMemory decodes the stored record of memory id.
func decodeMemory(id string, val []byte) (*Memory, error) {
	var m Memory
	if err := json.Unmarshal(val, &m); err != nil {
		return nil, fmt.Errorf("corrupt memory record %s: %w", id, err)
	}
	return &m, nil
}
