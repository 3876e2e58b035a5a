package memory

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/secret"
	"github.com/gloss-dev/gloss/memory/confidence"
	"github.com/gloss-dev/gloss/memory/fields"
	"github.com/gloss-dev/gloss/memory/memfile"
)

// fromFile returns the memory id as its file f describes it, merged with
// its copy (stored, else the hidden one): local state is kept, anchors are
// kept when their definition is the file's, new anchors are resolved with
// r. upgrade reports a file of an older format whose copy has the full
// anchors (the file is then rewritten).
func (w *Workspace) fromFile(id string, f *memFile, stored *Memory, r *resolver) (*Memory, bool, error) {
	prev := stored
	if prev == nil {
		h, err := w.hidden(id)
		if err != nil {
			return nil, false, err
		}
		if h != nil && h.FileSum == f.sum {
			return h, false, nil // the same file is back: restore as it was
		}
		prev = h
	}
	m, legacy, err := w.memoryFromHeader(id, f.h, f.body, prev)
	if err != nil {
		return nil, false, err
	}
	m.FileSum = f.sum
	for i := range m.Anchors {
		if m.Anchors[i].FileHash == "" && m.Anchors[i].Status == "" {
			m.Anchors[i] = r.resolve(m.Anchors[i])
		}
	}
	return m, legacy && prev != nil, nil
}

// memoryFromHeader builds memory id from a file's front matter and body
// over prev (its previous copy, may be nil). legacy reports a file of an
// older format (no anchor hashes or provenance).
func (w *Workspace) memoryFromHeader(id string, h memfile.Header, body string, prev *Memory) (*Memory, bool, error) {
	now := w.now().UTC()
	m := &Memory{V: SchemaVersion, ID: id, Source: "user", Confidence: 1}
	if prev != nil {
		m = prev.clone()
	}
	m.Scope = ScopeProject
	legacy := h.Source == ""
	typ, title, body, tags, err := headerText(h, body)
	if err != nil {
		return nil, false, err
	}
	edited := prev == nil || body != prev.Body || title != prev.Title || typ != prev.Type || !slices.Equal(tags, prev.Tags)
	if prev == nil || typ != prev.Type {
		m.HalfLifeDays = confidence.HalfLifeOf(typ)
	}
	m.Type, m.Title, m.Body, m.Tags = typ, title, body, tags
	if h.Author != "" {
		m.Author = h.Author
	}
	applyHeaderDates(m, h, prev, edited, now)
	if !legacy {
		if err := applyHeaderProvenance(m, h); err != nil {
			return nil, false, err
		}
	}
	oldAnchors, err := w.headerAnchors(m, h, prev)
	if err != nil {
		return nil, false, err
	}
	return m, legacy || oldAnchors, nil
}

// headerText validates the text fields of a memory file: its type
// (default note), body (trimmed, not empty), title (default derived from
// the body, at most fields.MaxTitle characters) and tags (trimmed, blanks
// dropped), and checks body and title for secrets. It needs no lock. It
// returns the cleaned fields, or the first invalid one's error.
func headerText(h memfile.Header, rawBody string) (typ, title, body string, tags []string, err error) {
	typ = h.Type
	if typ == "" {
		typ = "note"
	}
	if err := ValidateType(typ); err != nil {
		return "", "", "", nil, err
	}
	body = strings.TrimSpace(rawBody)
	if body == "" {
		return "", "", "", nil, errors.New("the memory text below the front matter is empty")
	}
	title = strings.TrimSpace(h.Title)
	if title == "" {
		title = DeriveTitle(body)
	}
	if n := len([]rune(title)); n > fields.MaxTitle {
		return "", "", "", nil, fmt.Errorf("title is %d characters, the limit is %d", n, fields.MaxTitle)
	}
	if err := secret.Check(body + "\n" + title); err != nil {
		return "", "", "", nil, err
	}
	for _, t := range h.Tags {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return typ, title, body, tags, nil
}

// applyHeaderDates sets m's created, updated and verified times from h
// where it gives them; a memory edited by hand (edited, over prev) without
// a later updated time is updated now, and missing times default to the
// creation time (itself now when unknown). It changes only m and needs no
// lock.
func applyHeaderDates(m *Memory, h memfile.Header, prev *Memory, edited bool, now time.Time) {
	if !h.CreatedAt.IsZero() {
		m.CreatedAt = h.CreatedAt
	}
	if !h.UpdatedAt.IsZero() {
		m.UpdatedAt = h.UpdatedAt
	}
	if prev != nil && edited && !h.UpdatedAt.After(prev.UpdatedAt) {
		m.UpdatedAt = now // edited by hand
	}
	if !h.VerifiedAt.IsZero() {
		m.VerifiedAt = h.VerifiedAt
	}
	m.defaultDates(now)
}

// applyHeaderProvenance sets m's source, pin, review flag, relations and
// git origin from h, a file of the current format (h.Source set). It
// changes only m and needs no lock; it returns an error for an unknown
// source (leaving m unchanged) or a malformed relation (validateRelations).
func applyHeaderProvenance(m *Memory, h memfile.Header) error {
	switch h.Source {
	case "user", "agent", "imported_git", "imported_file", "inferred":
	default:
		return fmt.Errorf("unknown source %q", h.Source)
	}
	m.Source, m.Pinned, m.NeedsReview, m.Relations = h.Source, h.Pinned, h.NeedsReview, relationsOfFile(h.Relations)
	m.GitCommit, m.GitBranch = h.GitCommit, h.GitBranch
	m.ReviewReason = h.ReviewReason
	m.ExpiresAt = h.ExpiresAt
	if h.HalfLife > 0 {
		m.HalfLifeDays = h.HalfLife
	}
	return validateRelations(m)
}

// headerAnchors sets m's anchors from h's: anchors of an older format are
// kept from prev when there is one, else rebuilt (legacyAnchor); current
// ones replace m's unless prev makes the same claims (sameAnchors), so a
// checkout keeps its resolution state. It changes only m and reads only
// the code, so it needs no lock (a sync calls it with w.writeMu held,
// Import's reading phase without). It reports whether h's anchors are of
// the older format, or returns the first anchor that cannot be read.
func (w *Workspace) headerAnchors(m *Memory, h memfile.Header, prev *Memory) (bool, error) {
	oldAnchors := len(h.Anchors) > 0 && slices.ContainsFunc(h.Anchors, memfile.Anchor.Legacy)
	switch {
	case oldAnchors && prev != nil:
		// The copy's anchors are the full ones.
	case oldAnchors:
		m.Anchors = nil
		for _, fa := range h.Anchors {
			a, err := w.legacyAnchor(fa)
			if err != nil {
				return false, err
			}
			m.Anchors = append(m.Anchors, a)
		}
	default:
		as := make([]Anchor, 0, len(h.Anchors))
		for _, fa := range h.Anchors {
			a, err := anchorOfFile(fa)
			if err != nil {
				return false, err
			}
			as = append(as, a)
		}
		if prev == nil || !sameAnchors(prev.Anchors, as) {
			m.Anchors = as
		}
	}
	return oldAnchors, nil
}

// sameAnchors reports whether two anchor lists make the same claims about
// the code (kind, hashes, origin, snapshot), whatever their last known
// places and statuses.
func sameAnchors(a, b []Anchor) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Kind != y.Kind || x.ContentHash != y.ContentHash || x.SignatureHash != y.SignatureHash || x.BodyHash != y.BodyHash ||
			x.OriginPath != y.OriginPath || x.OriginRange.StartLine != y.OriginRange.StartLine ||
			x.OriginRange.LastLine() != y.OriginRange.LastLine() || x.Snapshot != y.Snapshot {
			return false
		}
	}
	return true
}

// legacyAnchor anchors a file anchor of the older format (path, symbol,
// lines) to the code as it is now: the symbol in its file, else the lines.
// When neither can be found the anchor is kept at its lines, deleted.
func (w *Workspace) legacyAnchor(fa memfile.Anchor) (Anchor, error) {
	if err := memfile.CheckRelPath(fa.Path); err != nil {
		return Anchor{}, err
	}
	first, last, err := memfile.ParseLines(fa.Lines)
	if err != nil {
		return Anchor{}, err
	}
	if f, err := w.parseFile(fa.Path); err == nil {
		defer f.Release()
		var a Anchor
		found := false
		if fa.Symbol != "" {
			for _, d := range f.Defs {
				if d.Symbol == fa.Symbol {
					a, found = w.SymbolAnchor(f, d), true
					break
				}
			}
		}
		if !found && last < f.Lines.Count() {
			if a, err = w.anchorAt(f, first, last); err == nil {
				found = true
			}
		}
		if found {
			w.stampGit(&a)
			return a, nil
		}
	}
	kind := KindSpan
	if fa.Symbol != "" {
		kind = KindSymbol
	}
	r := index.Range{StartLine: first, EndLine: last + 1}
	return Anchor{Path: fa.Path, Symbol: fa.Symbol, Kind: kind, Range: r, Status: StatusDeleted, OriginPath: fa.Path, OriginRange: r,
		ResolvedAt: w.now().UTC()}, nil
}

// stampFile writes m's Markdown file when m is a project memory and sets
// m.FileSum to the SHA-256 of what was written; on failure it warns and
// leaves FileSum "" (the next full sync writes the file again, and never
// hides a memory whose file was not written). Personal memories get
// FileSum "". Callers store m afterwards.
func (w *Workspace) stampFile(m *Memory) {
	m.FileSum = ""
	if m.Scope != ScopeProject {
		return
	}
	if err := w.WriteMemoryFile(m); err != nil {
		w.warn(fmt.Errorf("write memory file of %s: %w", m.ID, err))
		return
	}
	m.FileSum = index.HashBytes(FormatMemoryFile(m))
}
