package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/index"
)

// UpdateRequest changes a memory. Nil fields are kept; a non-empty Path
// re-anchors the memory to the 1-based inclusive lines StartLine..EndLine
// of that file (replacing all its anchors).
type UpdateRequest struct {
	Text  *string
	Title *string
	Type  *string
	Tags  *[]string
	// Path is absolute or relative to the current directory; it must be
	// inside the workspace.
	Path      string
	StartLine int
	EndLine   int
	// Content, when set, is the current (possibly unsaved) text of Path.
	Content []byte
}

// Update validates req and applies it to the memory id durably. The store
// is unchanged on any error.
func (w *Workspace) Update(ctx context.Context, id string, req UpdateRequest) (*Memory, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	m, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	old := m.clone()
	if req.Text != nil {
		text := strings.TrimSpace(*req.Text)
		if text == "" {
			return nil, fmt.Errorf("memory text is empty")
		}
		m.Body = text
	}
	if req.Title != nil {
		title := strings.TrimSpace(*req.Title)
		if title == "" {
			title = DeriveTitle(m.Body)
		}
		if n := len([]rune(title)); n > MaxTitle {
			return nil, fmt.Errorf("title is %d characters, the limit is %d", n, MaxTitle)
		}
		m.Title = title
	}
	if req.Type != nil {
		if err := ValidateType(*req.Type); err != nil {
			return nil, err
		}
		if m.Type != *req.Type {
			m.Type = *req.Type
			m.HalfLifeDays = halfLives[m.Type]
		}
	}
	if req.Tags != nil {
		var tags []string
		for _, t := range *req.Tags {
			if t = strings.TrimSpace(t); t != "" {
				tags = append(tags, t)
			}
		}
		m.Tags = tags
	}
	if err := validateFields(m.Title, m.Body, m.Tags); err != nil {
		return nil, err
	}
	if req.Path != "" {
		rel, err := w.RelPath(req.Path)
		if err != nil {
			return nil, err
		}
		end := req.EndLine
		if end == 0 {
			end = req.StartLine
		}
		if req.StartLine < 1 || end < req.StartLine {
			return nil, fmt.Errorf("bad lines %d-%d (1-based, start ≤ end)", req.StartLine, end)
		}
		var f *index.File
		if req.Content != nil {
			f, err = w.parseSource(rel, req.Content)
		} else {
			f, err = w.parseFile(rel)
		}
		if err != nil {
			return nil, err
		}
		a, err := w.anchorAt(f, req.StartLine-1, end-1)
		f.Release()
		if err != nil {
			return nil, err
		}
		w.stampGit(&a)
		m.Anchors = []Anchor{a}
		m.VerifiedAt = w.now().UTC()
		m.NeedsReview = false
	}
	m.UpdatedAt = w.now().UTC()
	if err := w.save(old, m); err != nil {
		return nil, err
	}
	return m, nil
}
