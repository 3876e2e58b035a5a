package index

import (
	"fmt"
	"os"
	"strings"
)

// FullTextFilesTag describes the full-text index in dir as persisted: one
// line per file of the directory (Bluge's segment and snapshot files,
// gloss's schema and generation files), in name order, with its size in
// bytes and modification time in nanoseconds since the Unix epoch. Bluge
// never rewrites a segment or snapshot file in place (a change adds files
// of new epochs and removes old ones: bluge index/persister.go), so two
// equal tags name the same persisted snapshot, which a reader opened in
// between reads (bluge.OpenReader opens the newest snapshot). A saved
// BM25 index (bm25.Index.WriteSaved) carries the tag of the snapshot it
// was loaded from; a process compares it with this to use the saved
// index only while the full-text index is unchanged. It reads the
// directory and stats its files, no file content; it returns the error
// of reading the directory.
func FullTextFilesTag(dir string) (string, error) {
	ents, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %d %d %v\n", e.Name(), info.Size(), info.ModTime().UnixNano(), info.Mode())
	}
	return b.String(), nil
}

// Dir returns the index's directory.
func (f *FullText) Dir() string { return f.dir }

// Persisted reports whether f reads its directory's persisted snapshot
// as it was opened: no writer has been opened by this process (a writer's
// snapshots may hold segments not yet persisted, and its writes change
// the directory).
func (f *FullText) Persisted() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writer == nil && f.reader != nil
}
