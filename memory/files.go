package memory

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// MemoryFilesDir is where project-scope memories are mirrored as Markdown
// files with YAML front matter, relative to the workspace root.
const MemoryFilesDir = ".gloss/memories"

// FileAnchor is an anchor as written in a memory file.
type FileAnchor struct {
	Path   string `yaml:"path"`
	Symbol string `yaml:"symbol,omitempty"`
	Lines  string `yaml:"lines"`
}

// FileHeader is the YAML front matter of a memory file. Only type, title
// and tags (and the body below the front matter) are read back; the rest
// is informational.
type FileHeader struct {
	ID        string       `yaml:"id"`
	Type      string       `yaml:"type"`
	Title     string       `yaml:"title"`
	Tags      []string     `yaml:"tags,omitempty"`
	Anchors   []FileAnchor `yaml:"anchors,omitempty"`
	Author    string       `yaml:"author,omitempty"`
	CreatedAt time.Time    `yaml:"created_at"`
	UpdatedAt time.Time    `yaml:"updated_at"`
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
// files directory, or "".
func (w *Workspace) MemoryFileID(path string) string {
	dir := filepath.Join(w.Root, filepath.FromSlash(MemoryFilesDir))
	if filepath.Dir(path) != dir || filepath.Ext(path) != ".md" {
		return ""
	}
	return strings.TrimSuffix(filepath.Base(path), ".md")
}

// FormatMemoryFile renders m as Markdown with YAML front matter.
func FormatMemoryFile(m *Memory) []byte {
	h := FileHeader{ID: m.ID, Type: m.Type, Title: m.Title, Tags: m.Tags, Author: m.Author, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
	for _, a := range m.Anchors {
		lines := fmt.Sprintf("%d-%d", a.Range.StartLine+1, a.Range.LastLine()+1)
		h.Anchors = append(h.Anchors, FileAnchor{Path: a.Path, Symbol: a.Symbol, Lines: lines})
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(h)
	_ = enc.Close()
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(m.Body))
	b.WriteString("\n")
	return b.Bytes()
}

// ParseMemoryFile splits a memory file into its front matter and body.
func ParseMemoryFile(data []byte) (FileHeader, string, error) {
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

// WriteMemoryFile writes m's Markdown file (project scope only; a no-op
// for personal memories) atomically.
func (w *Workspace) WriteMemoryFile(m *Memory) error {
	path := w.MemoryFile(m)
	if path == "" {
		return nil
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

// RemoveMemoryFile deletes m's Markdown file if it has one.
func (w *Workspace) RemoveMemoryFile(m *Memory) error {
	path := w.MemoryFile(m)
	if path == "" {
		return nil
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// SyncMemoryFile applies an edited memory file (absolute path) to its
// memory: type, title, tags and body. It returns the updated memory, or
// nil when nothing changed or the file is not a memory file of this
// workspace.
func (w *Workspace) SyncMemoryFile(ctx context.Context, path string) (*Memory, error) {
	id := w.MemoryFileID(path)
	if id == "" {
		return nil, nil
	}
	data, err := w.readMemoryFile(path)
	if err != nil {
		return nil, err
	}
	h, body, err := ParseMemoryFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if h.ID != "" && h.ID != id {
		return nil, fmt.Errorf("%s: front matter id %s does not match the file name", path, h.ID)
	}
	m, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	var req UpdateRequest
	changed := false
	if body != "" && body != strings.TrimSpace(m.Body) {
		req.Text, changed = &body, true
	}
	if t := strings.TrimSpace(h.Title); t != "" && t != m.Title {
		req.Title, changed = &t, true
	}
	if h.Type != "" && h.Type != m.Type {
		req.Type, changed = &h.Type, true
	}
	if !slices.Equal(h.Tags, m.Tags) && (len(h.Tags) > 0 || len(m.Tags) > 0) {
		tags := h.Tags
		req.Tags, changed = &tags, true
	}
	if !changed {
		return nil, nil
	}
	return w.Update(ctx, id, req)
}
