package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrTooLarge is returned when an upload exceeds the configured maximum.
var ErrTooLarge = errors.New("storage: upload too large")

// BlobStore keeps uploaded files on local disk, addressed by SHA-256.
type BlobStore struct {
	Root string
	Max  int64
}

// PutBlob streams r to a temporary file, hashing it, then renames it to its
// content address. It returns the hex digest and the size.
func (s *BlobStore) PutBlob(tenant string, r io.Reader) (string, int64, error) {
	dir := filepath.Join(s.Root, tenant)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", 0, err
	}
	tmp, err := os.CreateTemp(dir, ".upload-*")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(r, s.Max+1))
	if err != nil {
		tmp.Close()
		return "", 0, fmt.Errorf("write upload: %w", err)
	}
	if n > s.Max {
		tmp.Close()
		return "", 0, ErrTooLarge
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", 0, err
	}
	if err := tmp.Close(); err != nil {
		return "", 0, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if err := os.Rename(tmp.Name(), filepath.Join(dir, sum)); err != nil {
		return "", 0, err
	}
	return sum, n, nil
}

// OpenBlob opens a stored blob of tenant by digest.
func (s *BlobStore) OpenBlob(tenant, sum string) (*os.File, error) {
	if len(sum) != 64 {
		return nil, fmt.Errorf("bad digest %q", sum)
	}
	return os.Open(filepath.Join(s.Root, tenant, sum))
}
