package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/gloss-dev/gloss/memory/confidence"
	"github.com/gloss-dev/gloss/memory/memfile"
)

// fileAnchor is a as written in a memory file.
func fileAnchor(a Anchor) memfile.Anchor {
	return memfile.Anchor{
		Path: a.Path, Symbol: a.Symbol, Lines: fmt.Sprintf("%d-%d", a.Range.StartLine+1, a.Range.LastLine()+1),
		Kind: a.Kind, Range: memfile.RangeSeq(a.Range),
		ContentHash: a.ContentHash, SignatureHash: a.SignatureHash, BodyHash: a.BodyHash, BodyUnique: a.BodyUnique,
		DefKind: a.DefKind, DefName: a.DefName,
		OriginPath: a.OriginPath, OriginRange: memfile.RangeSeq(a.OriginRange),
		GitCommit: a.GitCommit, GitBlob: a.GitBlob,
		Snapshot: memfile.Text(a.Snapshot), ContextBefore: a.ContextBefore, ContextAfter: a.ContextAfter, Tokens: a.Tokens,
	}
}

// anchorOfFile returns the anchor fa describes, unresolved (no status).
// It fails on paths outside the workspace and malformed fields.
func anchorOfFile(fa memfile.Anchor) (Anchor, error) {
	if err := memfile.CheckRelPath(fa.Path); err != nil {
		return Anchor{}, err
	}
	if fa.Kind != KindSymbol && fa.Kind != KindSpan {
		return Anchor{}, fmt.Errorf("anchor %s: unknown kind %q (want symbol or span)", fa.Path, fa.Kind)
	}
	if fa.Kind == KindSymbol && (fa.Symbol == "" || fa.BodyHash == "" || fa.SignatureHash == "") {
		return Anchor{}, fmt.Errorf("anchor %s: a symbol anchor needs symbol, signature_hash and body_hash", fa.Path)
	}
	r, ok := memfile.SeqRange(fa.Range)
	if !ok {
		return Anchor{}, fmt.Errorf("anchor %s: range must be 6 numbers [start line, start column, end line, end column, start byte, end byte]", fa.Path)
	}
	a := Anchor{
		Path: fa.Path, Symbol: fa.Symbol, Kind: fa.Kind, Range: r,
		ContentHash: fa.ContentHash, SignatureHash: fa.SignatureHash, BodyHash: fa.BodyHash, BodyUnique: fa.BodyUnique,
		DefKind: fa.DefKind, DefName: fa.DefName,
		Tokens: fa.Tokens, Snapshot: string(fa.Snapshot), ContextBefore: fa.ContextBefore, ContextAfter: fa.ContextAfter,
		GitCommit: fa.GitCommit, GitBlob: fa.GitBlob,
		OriginPath: fa.OriginPath, OriginRange: r,
	}
	if a.OriginPath == "" {
		a.OriginPath = a.Path
	} else if err := memfile.CheckRelPath(a.OriginPath); err != nil {
		return Anchor{}, err
	}
	if len(fa.OriginRange) > 0 {
		if a.OriginRange, ok = memfile.SeqRange(fa.OriginRange); !ok {
			return Anchor{}, fmt.Errorf("anchor %s: malformed origin_range", fa.Path)
		}
	}
	return a, nil
}

// fileRelations is rs as a memory file writes them (nil for none).
func fileRelations(rs []Relation) []memfile.Relation {
	if rs == nil {
		return nil
	}
	out := make([]memfile.Relation, len(rs))
	for i, r := range rs {
		out[i] = memfile.Relation(r)
	}
	return out
}

// relationsOfFile is the inverse of fileRelations.
func relationsOfFile(rs []memfile.Relation) []Relation {
	if rs == nil {
		return nil
	}
	out := make([]Relation, len(rs))
	for i, r := range rs {
		out[i] = Relation(r)
	}
	return out
}

// MemoryFile returns the absolute path of m's Markdown file, or "" when m
// is personal (personal memories live only in the store).
func (w *Workspace) MemoryFile(m *Memory) string {
	if m.Scope != ScopeProject {
		return ""
	}
	return filepath.Join(w.Root, filepath.FromSlash(memfile.Dir), m.ID+".md")
}

// MemoryFileID returns the memory id of an absolute path inside the memory
// files directory, or "". Only a file named exactly <id>.md, id a
// canonical (upper-case) ULID, is a memory file: a file named with a
// prefix of an id, in lower case, or anything else is not.
func (w *Workspace) MemoryFileID(path string) string {
	dir := filepath.Join(w.Root, filepath.FromSlash(memfile.Dir))
	if filepath.Dir(path) != dir || filepath.Ext(path) != ".md" {
		return ""
	}
	id := strings.TrimSuffix(filepath.Base(path), ".md")
	if !ValidID(id) {
		return ""
	}
	return id
}

// ValidID reports whether id is a canonical memory id: a ULID of 26
// upper-case Crockford base-32 characters.
func ValidID(id string) bool {
	u, err := ulid.ParseStrict(id)
	return err == nil && u.String() == id
}

// FormatMemoryFile renders m as Markdown with YAML front matter: the
// memory with its anchors as a clone needs them (memfile.Header,
// memfile.Anchor), then the body.
func FormatMemoryFile(m *Memory) []byte {
	h := memfile.Header{
		ID: m.ID, Type: m.Type, Title: m.Title, Tags: m.Tags, Author: m.Author,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, VerifiedAt: m.VerifiedAt,
		Source: m.Source, Pinned: m.Pinned, NeedsReview: m.NeedsReview, Relations: fileRelations(m.Relations),
		GitCommit: m.GitCommit, GitBranch: m.GitBranch, ExpiresAt: m.ExpiresAt,
	}
	if m.HalfLifeDays > 0 && m.HalfLifeDays != confidence.HalfLifeOf(m.Type) {
		h.HalfLife = m.HalfLifeDays
	}
	h.ReviewReason = m.ReviewReason
	if m.Scope != ScopeProject {
		h.Scope = m.Scope
	}
	for _, a := range m.Anchors {
		h.Anchors = append(h.Anchors, fileAnchor(a))
	}
	return memfile.Doc(h, m.Body)
}

// memoryDir returns the absolute memory files directory and whether it
// exists. It fails when .gloss or .gloss/memories is a symbolic link or
// not a directory: gloss never reads or writes memory files through a
// link, which could point out of the workspace.
func (w *Workspace) memoryDir() (string, bool, error) {
	dir := filepath.Join(w.Root, filepath.FromSlash(memfile.Dir))
	for _, p := range []string{".gloss", memfile.Dir} {
		st, err := os.Lstat(filepath.Join(w.Root, filepath.FromSlash(p)))
		if errors.Is(err, fs.ErrNotExist) {
			return dir, false, nil
		}
		if err != nil {
			return dir, false, err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return dir, false, fmt.Errorf("%s is a symbolic link: gloss does not read or write memory files through it (make it a directory)", p)
		}
		if !st.IsDir() {
			return dir, false, fmt.Errorf("%s is not a directory", p)
		}
	}
	return dir, true, nil
}

// WriteMemoryFile writes m's Markdown file (project scope only; a no-op
// for personal memories) atomically. It refuses to write through a
// symbolic link (memoryDir) or to replace one.
func (w *Workspace) WriteMemoryFile(m *Memory) error {
	path := w.MemoryFile(m)
	if path == "" {
		return nil
	}
	if _, _, err := w.memoryDir(); err != nil {
		return err
	}
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: gloss does not write through it", path)
	}
	data := FormatMemoryFile(m)
	if old, err := w.readMemoryFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// RemoveMemoryFile deletes m's Markdown file if it has one (never through
// a symbolic link).
func (w *Workspace) RemoveMemoryFile(m *Memory) error {
	path := w.MemoryFile(m)
	if path == "" {
		return nil
	}
	if _, ok, err := w.memoryDir(); err != nil || !ok {
		return err
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
