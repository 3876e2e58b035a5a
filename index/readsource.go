package index

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Errors of ReadSourceFile and CheckSourcePath, wrapped with the path.
var (
	// ErrNotRegular: the path is a FIFO, socket, device or directory.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is larger than the size limit.
	ErrTooLarge = errors.New("file too large")
	// ErrOutsideRoot: the path, or the target of a symlink on it, is
	// outside the workspace.
	ErrOutsideRoot = errors.New("outside the workspace")
	// ErrGitDir: the path is inside a .git directory (git's own files,
	// such as .git/config, are never workspace source).
	ErrGitDir = errors.New("inside .git")
)

// CheckSourcePath checks a workspace-relative, slash-separated path before
// any file system access: it must be relative, must not climb out with
// "..", and no segment may be ".git".
func CheckSourcePath(rel string) error {
	if rel == "" {
		return fmt.Errorf("empty path")
	}
	if strings.HasPrefix(rel, "/") || filepath.IsAbs(filepath.FromSlash(rel)) {
		return fmt.Errorf("%s: %w", rel, ErrOutsideRoot)
	}
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		switch {
		case seg == "..":
			return fmt.Errorf("%s: %w", rel, ErrOutsideRoot)
		case strings.EqualFold(seg, ".git"):
			return fmt.Errorf("%s: %w: git's own files cannot be read or anchored to", rel, ErrGitDir)
		}
	}
	return nil
}

// ReadSourceFile reads the workspace file rel (slash-separated, relative to
// root) the only way the engine reads workspace files: the path is checked
// (CheckSourcePath), symlinks on it are resolved and must stay inside root
// (and out of .git), the file is opened with O_NONBLOCK and O_NOFOLLOW so a
// FIFO or a swapped-in symlink cannot block or redirect the read, and it
// must be a regular file of at most maxSize bytes (0 or less means
// DefaultMaxFileSize), checked with fstat before reading and again while
// reading (a file growing under us). Errors wrap ErrNotRegular,
// ErrTooLarge, ErrOutsideRoot, ErrGitDir or the os error (os.ErrNotExist
// for a missing file).
func ReadSourceFile(root, rel string, maxSize int64) ([]byte, error) {
	return ReadSourceFileInto(nil, root, rel, maxSize)
}

// ReadSourceFileInto is ReadSourceFile reading into dst's room (dst[:0],
// grown when the file does not fit): a caller that only looks at the
// bytes before its next read (a line count, a comparison) reuses one
// buffer instead of allocating one per file (per-file buffers were 0.2
// GB of a +80,000 memory batch's allocations, docs/benchmarks.md). The
// result aliases dst when it fit.
func ReadSourceFileInto(dst []byte, root, rel string, maxSize int64) ([]byte, error) {
	if err := CheckSourcePath(rel); err != nil {
		return nil, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	return readSourceInto(dst, realRoot, rel, maxSize)
}

// readSourceIn is ReadSourceFile after the root's symlinks are resolved:
// realRoot is filepath.EvalSymlinks of the workspace root, so that a run
// reading many files resolves it once (Indexer.parseAll), not once per
// file. rel is checked here again; errors are ReadSourceFile's.
func readSourceIn(realRoot, rel string, maxSize int64) ([]byte, error) {
	return readSourceInto(nil, realRoot, rel, maxSize)
}

// readSourceInto is readSourceIn reading into dst's room
// (ReadSourceFileInto).
func readSourceInto(dst []byte, realRoot, rel string, maxSize int64) ([]byte, error) {
	if err := CheckSourcePath(rel); err != nil {
		return nil, err
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	real, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	inside, err := filepath.Rel(realRoot, real)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) || filepath.IsAbs(inside) {
		return nil, fmt.Errorf("%s: %w (it resolves to %s)", rel, ErrOutsideRoot, real)
	}
	if inside != filepath.FromSlash(rel) {
		if err := CheckSourcePath(filepath.ToSlash(inside)); err != nil {
			return nil, fmt.Errorf("%s resolves to %w", rel, err)
		}
	}
	f, err := os.OpenFile(real, os.O_RDONLY|sourceOpenFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", rel, ErrNotRegular, st.Mode().Type())
	}
	if st.Size() > maxSize {
		return nil, fmt.Errorf("%s: %w: %d bytes, the limit is %d (--max-file-size)", rel, ErrTooLarge, st.Size(), maxSize)
	}
	data, err := readAllSized(dst[:0], io.LimitReader(f, maxSize+1), st.Size())
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxSize {
		return nil, fmt.Errorf("%s: %w: it grew past the limit of %d bytes while read", rel, ErrTooLarge, maxSize)
	}
	return data, nil
}

// readAllSized is io.ReadAll into data's room (a new buffer when it
// holds fewer than size+1 bytes) with its first buffer sized for size bytes
// (the size fstat gave) plus one, as os.ReadFile sizes its buffer: a file
// that does not change while read is read into one allocation and ends
// with io.EOF in the spare byte, where io.ReadAll starts at 512 bytes and
// grows by copying. A file that grew meanwhile still reads to its end (the
// buffer grows as append grows it); errors are r's, io.EOF excepted.
func readAllSized(data []byte, r io.Reader, size int64) ([]byte, error) {
	n := size + 1
	if n < 512 {
		n = 512
	}
	if int64(cap(data)) < n {
		data = make([]byte, 0, n)
	}
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		m, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+m]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}
