package index

import (
	"errors"
	"fmt"
	"os"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// ErrStorePanic is wrapped by the errors that Recover makes of a panic
// inside Pebble (a corrupt table, a failed fsync): the caller gets an error
// naming the store instead of a crashed process.
var ErrStorePanic = errors.New("store failed")

// storeHasContent reports whether dir holds any file besides Pebble's LOCK
// file. Such a directory is an existing store (perhaps a damaged one) and
// must never be initialized afresh: that would hide its memories. A
// missing directory has no content.
func storeHasContent(fs vfs.FS, dir string) (bool, error) {
	names, err := fs.List(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("list store %s: %w", dir, err)
	}
	for _, n := range names {
		if n != "LOCK" {
			return true, nil
		}
	}
	return false, nil
}

// doctorHint ends the errors of a store that exists but cannot be opened or
// read.
const doctorHint = "the store was left untouched; run `gloss doctor` to check and repair it"

// openError describes a failure to open the existing store in dir.
func openError(dir string, err error) error {
	return fmt.Errorf("open store %s: %w (%s)", dir, err, doctorHint)
}

// Recover turns a panic in progress into an error naming the store dir
// and what was being done (op), assigned to *errp. Use it as
//
//	defer index.Recover(dir, "list memories", &err)
//
// at the boundary of every call into Pebble that can panic: Pebble panics
// on some corruptions and on failed fsyncs instead of returning errors.
// dir "" leaves the store unnamed (Scan does not know it; its callers
// name it).
func Recover(dir, op string, errp *error) {
	r := recover()
	if r == nil {
		return
	}
	*errp = panicError(dir, op, r)
}

func panicError(dir, op string, r any) error {
	where := ""
	if dir != "" {
		where = " in store " + dir
	}
	return fmt.Errorf("%s: %w%s: %v (%s)", op, ErrStorePanic, where, r, doctorHint)
}

// closeIter closes it, also while a panic unwinds (a leaked iterator would
// make closing the store fail), and keeps the first error in *errp.
func closeIter(it interface{ Close() error }, errp *error) {
	defer func() {
		if r := recover(); r != nil && *errp == nil {
			*errp = panicError("", "close iterator", r)
		}
	}()
	if cerr := it.Close(); cerr != nil && *errp == nil {
		*errp = cerr
	}
}

// corruptionListener returns Pebble event handlers that report on-disk
// corruption without panicking. Pebble's default handler calls the
// logger's Fatalf, which panics (quietLogger), and it is called on
// background goroutines too (table statistics), where no recover can catch
// it: one flipped byte in a table would kill the daemon. The read that
// meets the corruption returns it as an error anyway.
func corruptionListener() *pebble.EventListener {
	return &pebble.EventListener{
		DataCorruption: func(pebble.DataCorruptionInfo) {},
	}
}
