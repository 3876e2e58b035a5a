package memory

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gloss-dev/gloss/index"
)

// errOpenedReadOnly is the reason a workspace opened with
// Options.ReadOnly gives for being read-only: its first write reopens
// the store for writing (writable, as after a cleared write fault), so
// a read-only opening only saves time and never refuses a write.
var errOpenedReadOnly = errors.New("store opened read-only for a command that only reads")

// openStore opens the Pebble store in dir: read-only (no flush of the
// last process's write-ahead log, no compaction; index.OpenStoreReadOnly)
// when opts.ReadOnly asks for it and that works, else for writing. ro
// reports which.
func openStore(dir string, opts Options) (st *index.Store, ro bool, err error) {
	if opts.ReadOnly && opts.StoreFS == nil {
		st, err := index.OpenStoreReadOnly(dir)
		if err == nil {
			return st, true, nil
		}
		if errors.Is(err, index.ErrStoreLocked) {
			return nil, false, err
		}
	}
	if opts.StoreBulk {
		st, err = index.OpenStoreBulk(dir, opts.StoreFS, opts.StoreCacheBytes)
	} else {
		st, err = index.OpenStoreCache(dir, opts.StoreFS, opts.StoreCacheBytes)
	}
	return st, false, err
}

// accessFile is the file, in the project's data directory, that holds
// the accesses recorded by processes that opened the store read-only
// (which cannot write them to the store): one line per memory and
// process, "ID COUNT LAST" with LAST in Unix nanoseconds. The next
// opening for writing adds them to the store and removes the file.
const accessFile = "access.pending"

// appendAccessFile appends deltas to the access file in one write.
func (w *Workspace) appendAccessFile(deltas map[string]index.AccessStat) error {
	if len(deltas) == 0 {
		return nil
	}
	var b bytes.Buffer
	for id, st := range deltas {
		fmt.Fprintf(&b, "%s %d %d\n", id, st.Count, st.Last.UnixNano())
	}
	f, err := os.OpenFile(filepath.Join(w.Dir, accessFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("record accesses: %w", err)
	}
	_, werr := f.Write(b.Bytes())
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("record accesses: %w", err)
	}
	return nil
}

// mergeAccessFile adds the accesses of the access file to the store and
// removes the file; a missing file is nothing to do. Lines that do not
// parse (a write cut short by a crash) are skipped: accesses are
// statistics. On a store error the file is kept for the next opening.
func (w *Workspace) mergeAccessFile() error {
	path := filepath.Join(w.Dir, accessFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	deltas := parseAccessFile(data)
	if err := w.Store.AddAccess(deltas); err != nil {
		return fmt.Errorf("add the accesses of %s: %w", path, err)
	}
	return os.Remove(path)
}

// parseAccessFile returns the summed accesses of the lines of an access
// file, skipping malformed lines.
func parseAccessFile(data []byte) map[string]index.AccessStat {
	out := map[string]index.AccessStat{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) != 3 {
			continue
		}
		n, err1 := strconv.ParseInt(string(f[1]), 10, 64)
		ns, err2 := strconv.ParseInt(string(f[2]), 10, 64)
		if err1 != nil || err2 != nil || n <= 0 {
			continue
		}
		id := string(f[0])
		out[id] = mergeAccess(out[id], index.AccessStat{Count: n, Last: time.Unix(0, ns).UTC()})
	}
	return out
}

// storeAccess writes deltas to the store, or to the access file while
// the workspace is opened read-only.
func (w *Workspace) storeAccess(deltas map[string]index.AccessStat) error {
	if errors.Is(w.readOnly(), errOpenedReadOnly) {
		return w.appendAccessFile(deltas)
	}
	return w.Store.AddAccess(deltas)
}
