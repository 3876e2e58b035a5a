package index

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// StoreCheck is what CheckStore found and did.
type StoreCheck struct {
	// Dir is the store directory; Backup the copy made before any repair
	// ("" when there was no store to copy).
	Dir    string `json:"dir"`
	Backup string `json:"backup,omitempty"`
	// OK reports that the store opens and every key and value can be read.
	OK bool `json:"ok"`
	// Keys is the number of keys read.
	Keys int `json:"keys"`
	// Repairs lists what was changed; Problems what is still wrong.
	Repairs  []string `json:"repairs,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

// manifestMarkerPrefix starts the name of Pebble's manifest marker file.
// Pebble v2 (vfs/atomicfs, markerFilename) keeps the marker's whole state
// in the file name, "marker.manifest.<iteration, 6 digits>.<value>", where
// value is the name of the current MANIFEST file; the file itself is
// empty. That is what makes a lost marker recoverable: an empty file with
// the right name.
const manifestMarkerPrefix = "marker.manifest."

// CheckStore checks the Pebble store in dir and repairs what it safely can.
//
// When the store opens, it is backed up with a Pebble checkpoint into
// backup (which must not exist) and every key and value is read. When it
// does not open, its files are copied into backup first; then, if the
// manifest marker is missing, it is recreated pointing at the newest
// MANIFEST file with which the store opens and reads completely (older
// ones are tried in turn). Nothing else is changed. The returned error is
// for failures of the check itself (another process holds the store, the
// backup cannot be written); problems of the store are in Problems.
func CheckStore(dir, backup string) (*StoreCheck, error) {
	c := &StoreCheck{Dir: dir}
	if has, err := storeHasContent(vfs.Default, dir); err != nil {
		return nil, err
	} else if !has {
		c.OK = true
		return c, nil
	}
	st, openErr := OpenStore(dir, nil)
	if openErr == nil {
		defer st.Close()
		if err := st.checkpoint(backup); err != nil {
			return nil, fmt.Errorf("back up store %s to %s: %w", dir, backup, err)
		}
		c.Backup = backup
		n, err := st.readAll()
		c.Keys = n
		if err != nil {
			c.Problems = append(c.Problems, fmt.Sprintf("unreadable data after %d keys: %v", n, err))
			return c, nil
		}
		c.OK = true
		return c, nil
	}
	if errors.Is(openErr, syscall.EAGAIN) || strings.Contains(openErr.Error(), "another gloss process") {
		return nil, openErr
	}
	c.Problems = append(c.Problems, fmt.Sprintf("the store does not open: %v", openErr))
	if err := copyDir(dir, backup); err != nil {
		return nil, fmt.Errorf("back up store %s to %s: %w", dir, backup, err)
	}
	c.Backup = backup
	manifests, hasMarker, err := manifestFiles(dir)
	if err != nil {
		return nil, err
	}
	switch {
	case hasMarker:
		c.Problems = append(c.Problems, "the manifest marker is present, so this is not a lost marker, and gloss cannot repair it: restore a backup, or move the directory away to start over (its personal memories are then lost; project memories come back from .gloss/memories)")
		return c, nil
	case len(manifests) == 0:
		c.Problems = append(c.Problems, "the manifest marker and every MANIFEST file are missing: the store cannot be recovered")
		return c, nil
	}
	if err := c.recreateMarker(dir, manifests); err != nil {
		return nil, err
	}
	return c, nil
}

// manifestFiles lists the MANIFEST files of dir, newest first, and reports
// whether a manifest marker is present.
func manifestFiles(dir string) (manifests []string, hasMarker bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, manifestMarkerPrefix) {
			hasMarker = true
		}
		if _, ok := manifestNum(n); ok {
			manifests = append(manifests, n)
		}
	}
	sort.Slice(manifests, func(i, j int) bool {
		a, _ := manifestNum(manifests[i])
		b, _ := manifestNum(manifests[j])
		return a > b
	})
	return manifests, hasMarker, nil
}

// recreateMarker points a new manifest marker at the newest of manifests
// that gives a store that opens and reads completely, trying older ones
// after it; a marker that does not work is removed again. The outcome is
// recorded in c; the error is a failure to write or remove the marker.
func (c *StoreCheck) recreateMarker(dir string, manifests []string) error {
	for _, m := range manifests {
		marker := filepath.Join(dir, manifestMarkerPrefix+"000001."+m)
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			return fmt.Errorf("recreate manifest marker: %w", err)
		}
		if err := syncDir(dir); err != nil {
			return err
		}
		st, err := OpenStore(dir, nil)
		if err == nil {
			var n int
			n, err = st.readAll()
			if cerr := st.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				c.Keys = n
				c.OK = true
				c.Repairs = append(c.Repairs, fmt.Sprintf("recreated the missing manifest marker, pointing at %s (the newest MANIFEST that reads completely)", m))
				c.Problems = nil
				return nil
			}
		}
		c.Problems = append(c.Problems, fmt.Sprintf("%s does not give a readable store: %v", m, err))
		if rerr := os.Remove(marker); rerr != nil {
			return fmt.Errorf("undo manifest marker: %w", rerr)
		}
	}
	c.Problems = append(c.Problems, "no MANIFEST file gives a readable store; the store was left as it was")
	return nil
}

// manifestNum returns the file number of a "MANIFEST-000123" name.
func manifestNum(name string) (uint64, bool) {
	rest, ok := strings.CutPrefix(name, "MANIFEST-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}

// checkpoint writes a consistent copy of the store into dest.
func (s *Store) checkpoint(dest string) (err error) {
	defer Recover(s.dir, "checkpoint", &err)
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return err
	}
	return s.pdb().Checkpoint(dest, pebble.WithFlushedWAL())
}

// readAll reads every key and value of the store and returns how many keys
// it read before the first error.
func (s *Store) readAll() (n int, err error) {
	defer Recover(s.dir, "read store", &err)
	it, err := s.pdb().NewIter(nil)
	if err != nil {
		return 0, err
	}
	defer closeIter(it, &err)
	for it.First(); it.Valid(); it.Next() {
		_ = it.Value()
		n++
	}
	return n, it.Error()
}

// copyDir copies the regular files of src into dst (created), syncing
// each: the raw backup of a store that cannot be opened.
func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return syncDir(dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
