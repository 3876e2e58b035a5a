package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory/confidence"
	"github.com/gloss-dev/gloss/memory/fields"
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
	return w.edit(id, func(m *Memory) (bool, error) {
		if err := applyUpdateFields(m, req); err != nil {
			return false, err
		}
		if req.Path != "" {
			if err := w.reanchorUpdate(m, req); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// edit is the read-change-write of one memory that Update, Flag and
// Relate share: under w.writeMu it reads memory id (Get: an id or a
// unique prefix), lets change modify it, and, when change reports a
// change, sets UpdatedAt to now and stores it durably (save). It returns
// the memory. The store is unchanged when Get, change or the save fails
// (change must then return its error; what it set on m is dropped).
func (w *Workspace) edit(id string, change func(m *Memory) (changed bool, err error)) (*Memory, error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	m, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	old := m.clone()
	changed, err := change(m)
	if err != nil {
		return nil, err
	}
	if !changed {
		return m, nil
	}
	m.UpdatedAt = w.now().UTC()
	if err := w.save(old, m); err != nil {
		return nil, err
	}
	return m, nil
}

// applyUpdateFields sets on m the text, title, type and tags req gives
// (nil ones are kept) and validates the result. It changes only m (Update
// passes the memory freshly read from the store, with w.writeMu held, so
// an error leaves the store as it was) and returns the first invalid
// field's error.
func applyUpdateFields(m *Memory, req UpdateRequest) error {
	if req.Text != nil {
		text := strings.TrimSpace(*req.Text)
		if text == "" {
			return fmt.Errorf("memory text is empty")
		}
		m.Body = text
	}
	if req.Title != nil {
		title := strings.TrimSpace(*req.Title)
		if title == "" {
			title = DeriveTitle(m.Body)
		}
		if n := len([]rune(title)); n > fields.MaxTitle {
			return fmt.Errorf("title is %d characters, the limit is %d", n, fields.MaxTitle)
		}
		m.Title = title
	}
	if req.Type != nil {
		if err := ValidateType(*req.Type); err != nil {
			return err
		}
		if m.Type != *req.Type {
			m.Type = *req.Type
			m.HalfLifeDays = confidence.HalfLifeOf(m.Type)
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
	return fields.Validate(m.Title, m.Body, m.Tags)
}

// reanchorUpdate replaces the anchors of m with one anchor to the lines
// req.StartLine..req.EndLine of req.Path (in req.Content when set),
// stamped with git provenance, and marks m verified now and no longer in
// need of review. It is called by Update with w.writeMu held and changes
// only m; it returns an error for a path outside the workspace, bad lines
// or a file that cannot be parsed or anchored.
func (w *Workspace) reanchorUpdate(m *Memory, req UpdateRequest) error {
	rel, err := w.RelPath(req.Path)
	if err != nil {
		return err
	}
	end := req.EndLine
	if end == 0 {
		end = req.StartLine
	}
	if req.StartLine < 1 || end < req.StartLine {
		return fmt.Errorf("bad lines %d-%d (1-based, start ≤ end)", req.StartLine, end)
	}
	var f *index.File
	if req.Content != nil {
		f, err = w.parseSource(rel, req.Content)
	} else {
		f, err = w.parseFile(rel)
	}
	if err != nil {
		return err
	}
	a, err := w.anchorAt(f, req.StartLine-1, end-1)
	f.Release()
	if err != nil {
		return err
	}
	w.stampGit(&a)
	m.Anchors = []Anchor{a}
	m.VerifiedAt = w.now().UTC()
	m.NeedsReview, m.ReviewReason = false, ""
	return nil
}
