package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
	"gopkg.in/yaml.v3"

	"github.com/gloss-dev/gloss/index"
)

// MemoryFilesDir is where project-scope memories are mirrored as Markdown
// files with YAML front matter, relative to the workspace root.
const MemoryFilesDir = ".gloss/memories"

// FileAnchor is an anchor as written in a memory file: everything a clone
// needs to re-resolve it (DESIGN.md "Anchors and staleness") except the
// local resolution state (status, file hash, index generation), which each
// checkout computes itself. Lines is 1-based and inclusive, for readers;
// Range is the exact last known range, 0-based, as
// [start line, start column, end line, end column, start byte, end byte].
// Files written before these fields existed carry only path, symbol and
// lines ("legacy" anchors; see SyncMemoryFiles).
type FileAnchor struct {
	Path          string       `yaml:"path"`
	Symbol        string       `yaml:"symbol,omitempty"`
	Lines         string       `yaml:"lines"`
	Kind          string       `yaml:"kind,omitempty"`
	Range         flowSeq[int] `yaml:"range,omitempty"`
	ContentHash   string       `yaml:"content_hash,omitempty"`
	SignatureHash string       `yaml:"signature_hash,omitempty"`
	BodyHash      string       `yaml:"body_hash,omitempty"`
	BodyUnique    bool         `yaml:"body_unique,omitempty"`
	DefKind       string       `yaml:"def_kind,omitempty"`
	DefName       string       `yaml:"def_name,omitempty"`
	// OriginPath and OriginRange are where the anchor was made or last
	// verified (Range's layout).
	OriginPath    string          `yaml:"origin_path,omitempty"`
	OriginRange   flowSeq[int]    `yaml:"origin_range,omitempty"`
	GitCommit     string          `yaml:"git_commit,omitempty"`
	GitBlob       string          `yaml:"git_blob,omitempty"`
	Snapshot      string          `yaml:"snapshot,omitempty"`
	ContextBefore []string        `yaml:"context_before,omitempty"`
	ContextAfter  []string        `yaml:"context_after,omitempty"`
	Tokens        flowSeq[string] `yaml:"tokens,omitempty"`
}

// FileHeader is the YAML front matter of a memory file. Every field is
// read back (SyncMemoryFiles); Scope is written only for personal
// memories (exports): files under MemoryFilesDir are project scope.
// ExpiresAt is Memory.ExpiresAt; HalfLife is Memory.HalfLifeDays, written
// only when it is not its type's default (HalfLives). Local state
// (stale_since, confidence, accesses) is not written: each clone computes
// its own.
type FileHeader struct {
	ID          string       `yaml:"id"`
	Type        string       `yaml:"type"`
	Title       string       `yaml:"title"`
	Tags        []string     `yaml:"tags,omitempty"`
	Anchors     []FileAnchor `yaml:"anchors,omitempty"`
	Author      string       `yaml:"author,omitempty"`
	CreatedAt   time.Time    `yaml:"created_at"`
	UpdatedAt   time.Time    `yaml:"updated_at"`
	VerifiedAt  time.Time    `yaml:"verified_at,omitempty"`
	Scope       string       `yaml:"scope,omitempty"`
	Source      string       `yaml:"source,omitempty"`
	Pinned      bool         `yaml:"pinned,omitempty"`
	NeedsReview bool         `yaml:"needs_review,omitempty"`
	Relations   []Relation   `yaml:"relations,omitempty"`
	GitCommit   string       `yaml:"git_commit,omitempty"`
	GitBranch   string       `yaml:"git_branch,omitempty"`
	// ReviewReason is why a person flagged the memory (Memory.ReviewReason).
	ReviewReason string    `yaml:"review_reason,omitempty"`
	ExpiresAt    time.Time `yaml:"expires_at,omitempty"`
	HalfLife     float64   `yaml:"half_life_days,omitempty"`
}

// flowSeq is a list written in YAML flow style ([a, b, c]) to keep
// machine fields of memory files on one line.
type flowSeq[T any] []T

// MarshalYAML implements yaml.Marshaler.
func (s flowSeq[T]) MarshalYAML() (any, error) {
	var n yaml.Node
	if err := n.Encode([]T(s)); err != nil {
		return nil, err
	}
	n.Style = yaml.FlowStyle
	return &n, nil
}

func rangeSeq(r index.Range) flowSeq[int] {
	return flowSeq[int]{r.StartLine, r.StartCol, r.EndLine, r.EndCol, r.StartByte, r.EndByte}
}

func seqRange(s flowSeq[int]) (index.Range, bool) {
	if len(s) != 6 {
		return index.Range{}, false
	}
	r := index.Range{StartLine: s[0], StartCol: s[1], EndLine: s[2], EndCol: s[3], StartByte: s[4], EndByte: s[5]}
	if r.StartLine < 0 || r.EndLine < r.StartLine || r.StartCol < 0 || r.EndCol < 0 || r.StartByte < 0 || r.EndByte < r.StartByte {
		return index.Range{}, false
	}
	return r, true
}

// fileAnchor is a as written in a memory file.
func fileAnchor(a Anchor) FileAnchor {
	return FileAnchor{
		Path: a.Path, Symbol: a.Symbol, Lines: fmt.Sprintf("%d-%d", a.Range.StartLine+1, a.Range.LastLine()+1),
		Kind: a.Kind, Range: rangeSeq(a.Range),
		ContentHash: a.ContentHash, SignatureHash: a.SignatureHash, BodyHash: a.BodyHash, BodyUnique: a.BodyUnique,
		DefKind: a.DefKind, DefName: a.DefName,
		OriginPath: a.OriginPath, OriginRange: rangeSeq(a.OriginRange),
		GitCommit: a.GitCommit, GitBlob: a.GitBlob,
		Snapshot: a.Snapshot, ContextBefore: a.ContextBefore, ContextAfter: a.ContextAfter, Tokens: a.Tokens,
	}
}

// Legacy reports whether fa was written before memory files carried
// hashes (only path, symbol and lines).
func (fa FileAnchor) Legacy() bool { return fa.ContentHash == "" }

// anchor returns the anchor fa describes, unresolved (no status). It fails
// on paths outside the workspace and malformed fields.
func (fa FileAnchor) anchor() (Anchor, error) {
	if err := checkRelPath(fa.Path); err != nil {
		return Anchor{}, err
	}
	if fa.Kind != KindSymbol && fa.Kind != KindSpan {
		return Anchor{}, fmt.Errorf("anchor %s: unknown kind %q (want symbol or span)", fa.Path, fa.Kind)
	}
	if fa.Kind == KindSymbol && (fa.Symbol == "" || fa.BodyHash == "" || fa.SignatureHash == "") {
		return Anchor{}, fmt.Errorf("anchor %s: a symbol anchor needs symbol, signature_hash and body_hash", fa.Path)
	}
	r, ok := seqRange(fa.Range)
	if !ok {
		return Anchor{}, fmt.Errorf("anchor %s: range must be 6 numbers [start line, start column, end line, end column, start byte, end byte]", fa.Path)
	}
	a := Anchor{
		Path: fa.Path, Symbol: fa.Symbol, Kind: fa.Kind, Range: r,
		ContentHash: fa.ContentHash, SignatureHash: fa.SignatureHash, BodyHash: fa.BodyHash, BodyUnique: fa.BodyUnique,
		DefKind: fa.DefKind, DefName: fa.DefName,
		Tokens: fa.Tokens, Snapshot: fa.Snapshot, ContextBefore: fa.ContextBefore, ContextAfter: fa.ContextAfter,
		GitCommit: fa.GitCommit, GitBlob: fa.GitBlob,
		OriginPath: fa.OriginPath, OriginRange: r,
	}
	if a.OriginPath == "" {
		a.OriginPath = a.Path
	} else if err := checkRelPath(a.OriginPath); err != nil {
		return Anchor{}, err
	}
	if len(fa.OriginRange) > 0 {
		if a.OriginRange, ok = seqRange(fa.OriginRange); !ok {
			return Anchor{}, fmt.Errorf("anchor %s: malformed origin_range", fa.Path)
		}
	}
	return a, nil
}

// checkRelPath accepts clean, slash-separated workspace-relative paths
// only: no absolute paths, no "..", no backslashes.
func checkRelPath(p string) error {
	if p == "" || path.IsAbs(p) || strings.Contains(p, "\\") || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || p == "." {
		return fmt.Errorf("anchor path %q is not a clean path inside the workspace", p)
	}
	return nil
}

// parseLines parses "START-END" (1-based, inclusive) into 0-based lines.
func parseLines(s string) (int, int, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok {
		b = a
	}
	first, err1 := strconv.Atoi(strings.TrimSpace(a))
	last, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || first < 1 || last < first {
		return 0, 0, fmt.Errorf("lines %q: want START-END, 1-based", s)
	}
	return first - 1, last - 1, nil
}

// MemoryFile returns the absolute path of m's Markdown file, or "" when m
// is personal (personal memories live only in the store).
func (w *Workspace) MemoryFile(m *Memory) string {
	if m.Scope != ScopeProject {
		return ""
	}
	return filepath.Join(w.Root, filepath.FromSlash(MemoryFilesDir), m.ID+".md")
}

// MemoryFileID returns the memory id of an absolute path inside the memory
// files directory, or "". Only a file named exactly <id>.md, id a
// canonical (upper-case) ULID, is a memory file: a file named with a
// prefix of an id, in lower case, or anything else is not.
func (w *Workspace) MemoryFileID(path string) string {
	dir := filepath.Join(w.Root, filepath.FromSlash(MemoryFilesDir))
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
// memory with its anchors as a clone needs them (FileHeader, FileAnchor),
// then the body.
func FormatMemoryFile(m *Memory) []byte {
	h := FileHeader{
		ID: m.ID, Type: m.Type, Title: m.Title, Tags: m.Tags, Author: m.Author,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, VerifiedAt: m.VerifiedAt,
		Source: m.Source, Pinned: m.Pinned, NeedsReview: m.NeedsReview, Relations: m.Relations,
		GitCommit: m.GitCommit, GitBranch: m.GitBranch, ExpiresAt: m.ExpiresAt,
	}
	if m.HalfLifeDays > 0 && m.HalfLifeDays != halfLifeOf(m.Type) {
		h.HalfLife = m.HalfLifeDays
	}
	h.ReviewReason = m.ReviewReason
	if m.Scope != ScopeProject {
		h.Scope = m.Scope
	}
	for _, a := range m.Anchors {
		h.Anchors = append(h.Anchors, fileAnchor(a))
	}
	return FrontMatterDoc(h, m.Body)
}

// FrontMatterDoc renders a Markdown document with YAML front matter: the
// header (any YAML-encodable value, 2-space indent) between "---" lines,
// a blank line, then body trimmed, ending in a newline.
func FrontMatterDoc(header any, body string) []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(header)
	_ = enc.Close()
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(body))
	b.WriteString("\n")
	return b.Bytes()
}

// ParseMemoryFile splits a memory file into its front matter and body.
// It fails on a missing or unclosed front matter, malformed YAML and
// unresolved merge conflicts (conflictLine); the error names the 1-based
// line when it can.
func ParseMemoryFile(data []byte) (FileHeader, string, error) {
	if n := conflictLine(data); n > 0 {
		return FileHeader{}, "", fmt.Errorf("line %d: unresolved merge conflict (<<<<<<< … >>>>>>>): resolve it and save the file", n)
	}
	var h FileHeader
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return h, "", fmt.Errorf("memory file does not start with --- (YAML front matter)")
	}
	front, body, ok := strings.Cut(s[4:], "\n---\n")
	if !ok {
		if f, found := strings.CutSuffix(s[4:], "\n---"); found {
			front, body, ok = f, "", true
		}
	}
	if !ok {
		return h, "", fmt.Errorf("memory file front matter is not closed with ---")
	}
	if err := yaml.Unmarshal([]byte(front), &h); err != nil {
		return h, "", fmt.Errorf("memory file front matter: %w", err)
	}
	return h, strings.TrimSpace(body), nil
}

// conflictLine returns the 1-based line of the first merge-conflict block
// in data — a "<<<<<<<" line, later a "=======" line, later a ">>>>>>>"
// line, as git writes them — or 0. Single marker-like lines (a memory
// about merge conflicts) are not conflicts.
func conflictLine(data []byte) int {
	start, stage := 0, 0
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimRight(l, "\r")
		switch {
		case isMarker(l, "<<<<<<<"):
			start, stage = i+1, 1
		case stage == 1 && l == "=======":
			stage = 2
		case stage == 2 && isMarker(l, ">>>>>>>"):
			return start
		}
	}
	return 0
}

func isMarker(l, m string) bool {
	return l == m || strings.HasPrefix(l, m+" ")
}

// memoryDir returns the absolute memory files directory and whether it
// exists. It fails when .gloss or .gloss/memories is a symbolic link or
// not a directory: gloss never reads or writes memory files through a
// link, which could point out of the workspace.
func (w *Workspace) memoryDir() (string, bool, error) {
	dir := filepath.Join(w.Root, filepath.FromSlash(MemoryFilesDir))
	for _, p := range []string{".gloss", MemoryFilesDir} {
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
