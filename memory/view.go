package memory

import (
	"math"
	"time"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory/confidence"
)

// AnchorView is the JSON shape of an anchor in CLI and language-server
// results. Lines are 1-based and inclusive.
type AnchorView struct {
	Path            string `json:"path"`
	Symbol          string `json:"symbol,omitempty"`
	Kind            string `json:"kind"`
	StartLine       int    `json:"start_line"`
	EndLine         int    `json:"end_line"`
	Status          string `json:"status"`
	OriginPath      string `json:"origin_path,omitempty"`
	OriginStartLine int    `json:"origin_start_line,omitempty"`
	OriginEndLine   int    `json:"origin_end_line,omitempty"`
}

// View is the JSON shape of a memory in CLI and language-server results.
type View struct {
	ID         string       `json:"id"`
	Type       string       `json:"type"`
	Title      string       `json:"title"`
	Body       string       `json:"body,omitempty"`
	Tags       []string     `json:"tags,omitempty"`
	Stale      bool         `json:"stale"`
	Scope      string       `json:"scope"`
	Source     string       `json:"source"`
	Author     string       `json:"author,omitempty"`
	CreatedAt  time.Time    `json:"created_at"`
	UpdatedAt  time.Time    `json:"updated_at"`
	VerifiedAt time.Time    `json:"verified_at"`
	Anchors    []AnchorView `json:"anchors"`
	// Placement and NearDuplicates are set in the result of remember
	// (Memory.Placement, Memory.Duplicates).
	Placement      string      `json:"placement,omitempty"`
	NearDuplicates []Duplicate `json:"near_duplicates,omitempty"`

	// Relations are the memory's own relations (Memory.Relations);
	// SupersededBy the ids of the memories that supersede it (set when
	// the workspace annotated the memory, Workspace.Annotate).
	Relations    []Relation `json:"relations,omitempty"`
	SupersededBy []string   `json:"superseded_by,omitempty"`
	// NeedsReview and ReviewReason: a person flagged the memory as wrong
	// (Workspace.Flag).
	ReviewReason string `json:"review_reason,omitempty"`
	// Decision is what a remember did about near-duplicates
	// (RememberRequest.OnDuplicate).
	Decision *Decision `json:"decision,omitempty"`

	ViewLifecycle

	// halfLifeDays is Memory.HalfLifeDays (0: the type's), kept in the
	// stored summary for ranking from summaries and not part of the JSON.
	halfLifeDays float64
}

// ViewLifecycle are the lifecycle fields of a View: Confidence (0..1,
// confidence.Of at the time the view was made), the flags and times it
// depends on, and the access statistics (access.go; 0 and absent where
// a command does not read them).
type ViewLifecycle struct {
	Confidence     float64   `json:"confidence"`
	Pinned         bool      `json:"pinned,omitempty"`
	NeedsReview    bool      `json:"needs_review,omitempty"`
	StaleSince     time.Time `json:"stale_since,omitzero"`
	ExpiresAt      time.Time `json:"expires_at,omitzero"`
	AccessCount    int       `json:"access_count,omitempty"`
	LastAccessedAt time.Time `json:"last_accessed_at,omitzero"`
}

// Lifecycle returns the confidence inputs of a view (a stored summary):
// its half-life is the memory's when the summary holds it (format 2),
// else its type's.
func (v View) Lifecycle() confidence.Lifecycle {
	return confidence.Lifecycle{Type: v.Type, Source: v.Source, VerifiedAt: v.VerifiedAt, HalfLifeDays: v.halfLifeDays, Pinned: v.Pinned,
		NeedsReview: v.NeedsReview, Stale: v.Stale, StaleSince: v.StaleSince}
}

// ViewOf returns the JSON view of m.
func ViewOf(m *Memory) View {
	v := View{ID: m.ID, Type: m.Type, Title: m.Title, Body: m.Body, Tags: m.Tags, Stale: m.Stale(), Scope: m.Scope, Source: m.Source,
		Author: m.Author, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, VerifiedAt: m.VerifiedAt, Anchors: []AnchorView{},
		Placement: m.Placement, NearDuplicates: m.Duplicates, halfLifeDays: m.HalfLifeDays}
	v.Relations, v.SupersededBy, v.Decision = m.Relations, m.SupersededBy, m.Decision
	v.NeedsReview, v.ReviewReason = m.NeedsReview, m.ReviewReason
	v.ViewLifecycle = ViewLifecycle{Confidence: round2(m.Confidence), Pinned: m.Pinned, NeedsReview: m.NeedsReview,
		StaleSince: m.StaleSince, ExpiresAt: m.ExpiresAt, AccessCount: m.AccessCount, LastAccessedAt: m.LastAccessedAt}
	for _, a := range m.Anchors {
		av := AnchorView{Path: a.Path, Symbol: a.Symbol, Kind: a.Kind, StartLine: a.Range.StartLine + 1, EndLine: a.Range.LastLine() + 1, Status: a.Status}
		if a.OriginPath != a.Path || a.OriginRange.StartLine != a.Range.StartLine || a.OriginRange.LastLine() != a.Range.LastLine() {
			av.OriginPath, av.OriginStartLine, av.OriginEndLine = a.OriginPath, a.OriginRange.StartLine+1, a.OriginRange.LastLine()+1
		}
		v.Anchors = append(v.Anchors, av)
	}
	return v
}

// Views returns the JSON views of ms (never nil).
func Views(ms []*Memory) []View {
	out := make([]View, 0, len(ms))
	for _, m := range ms {
		out = append(out, ViewOf(m))
	}
	return out
}

// SymbolView is the JSON shape of a code definition in results: lines
// are 1-based and inclusive.
type SymbolView struct {
	Symbol    string `json:"symbol"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Doc       string `json:"doc,omitempty"`
}

// SymbolViewOf returns the JSON view of d.
func SymbolViewOf(d index.Definition) SymbolView {
	return SymbolView{Symbol: d.Symbol, Name: d.Name, Kind: d.Kind, Path: d.Path, StartLine: d.Range.StartLine + 1, EndLine: d.Range.LastLine() + 1, Doc: d.Doc}
}

// round2 rounds a confidence to 2 decimals for display and JSON.
func round2(x float64) float64 { return math.Round(x*100) / 100 }
