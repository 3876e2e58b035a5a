// Package memory is gloss's engine: the memory model, its Pebble store,
// anchoring of memories to code and their re-resolution (staleness) as the
// code changes, and full-text search. The lsp package and the CLI are thin
// adapters over Workspace.
package memory

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory/confidence"
	"github.com/gloss-dev/gloss/memory/fields"
)

// Types of memory (DESIGN.md, "Memory record").
var Types = []string{"gotcha", "decision", "convention", "pattern", "requirement", "error_pattern", "module_insight", "workflow", "dead_end", "note"}

// Anchor kinds.
const (
	// KindSymbol anchors a whole definition by SCIP symbol and hashes.
	KindSymbol = "symbol"
	// KindSpan anchors lines inside (or outside) a definition by their
	// normalized tokens and a snapshot of the text.
	KindSpan = "span"
)

// Anchor statuses. A memory is stale when any anchor is Changed,
// SignatureChanged or Deleted.
const (
	// StatusFresh: the code is as written, where it was written.
	StatusFresh = "fresh"
	// StatusMoved: the same code (same normalized tokens) at another place;
	// treated as fresh.
	StatusMoved = "moved"
	// StatusChanged: the body changed.
	StatusChanged = "changed"
	// StatusSignatureChanged: the declaration header (parameters, results,
	// receiver, type parameters, heritage) changed.
	StatusSignatureChanged = "signature_changed"
	// StatusDeleted: the code cannot be found; the anchor keeps its last
	// known place.
	StatusDeleted = "deleted"
)

// IsStale reports whether an anchor status makes its memory stale.
func IsStale(status string) bool {
	return status == StatusChanged || status == StatusSignatureChanged || status == StatusDeleted
}

// Scopes.
const (
	ScopePersonal = "personal"
	ScopeProject  = "project"
)

// SchemaVersion of memory records; see index.SchemaVersion for the rules.
// Version 2 added stale_since and expires_at; a version 1 record reads
// with both zero (lifecycle derives stale_since from its anchors) and is
// written back as version 2 on its next change.
const SchemaVersion = 2

// Anchor is where a memory points. Range lines are 0-based, columns UTF-16
// code units (see index.Range).
type Anchor struct {
	// Path is workspace-relative and slash-separated.
	Path string `json:"path"`
	// Symbol is the SCIP symbol of the anchored definition (KindSymbol) or
	// of the innermost definition enclosing the span (KindSpan), or "".
	Symbol string `json:"symbol,omitempty"`
	// Kind is KindSymbol or KindSpan.
	Kind string `json:"kind"`
	// Range is the current (last known) place.
	Range index.Range `json:"range"`
	// ContentHash hashes the normalized tokens of the anchored code as
	// written or last verified (index.HashTokens).
	ContentHash string `json:"content_hash"`
	// SignatureHash and BodyHash are the definition's hashes as written
	// (KindSymbol only).
	SignatureHash string `json:"signature_hash,omitempty"`
	BodyHash      string `json:"body_hash,omitempty"`
	// BodyUnique records that no other definition had the same body hash
	// when the anchor was made, which makes following a rename by body
	// hash safe.
	BodyUnique bool `json:"body_unique,omitempty"`
	// DefKind and DefName are the index kind and name of the anchored
	// definition (KindSymbol).
	DefKind string `json:"def_kind,omitempty"`
	DefName string `json:"def_name,omitempty"`
	// Tokens are the normalized tokens of a span (KindSpan), used to find
	// the span again after edits elsewhere in the file.
	Tokens []string `json:"tokens,omitempty"`
	// LeadLines and TrailLines count the span's lines before its first
	// token and after its last one (doc comments, comments, blank lines:
	// lines without tokens), so that a span found again by its tokens
	// keeps its lines (KindSpan; 0 in anchors made before they existed).
	LeadLines  int `json:"lead_lines,omitempty"`
	TrailLines int `json:"trail_lines,omitempty"`
	// Snapshot is the anchored text as written (capped at SnapshotCap
	// bytes); ContextBefore/After are up to ContextLines lines around it.
	Snapshot      string   `json:"snapshot"`
	ContextBefore []string `json:"context_before,omitempty"`
	ContextAfter  []string `json:"context_after,omitempty"`
	// GitCommit and GitBlob identify the code at creation ("" outside git).
	GitCommit string `json:"git_commit,omitempty"`
	GitBlob   string `json:"git_blob,omitempty"`
	// Status is the result of the last resolution.
	Status string `json:"status"`
	// OriginPath and OriginRange are the place when the anchor was made or
	// last verified; a resolution that finds the code elsewhere says moved.
	OriginPath  string      `json:"origin_path"`
	OriginRange index.Range `json:"origin_range"`
	// FileHash is the content hash of Path's file at the last resolution;
	// ResolvedGen the index generation then. An anchor is re-resolved only
	// when either is out of date.
	FileHash    string    `json:"file_hash,omitempty"`
	ResolvedGen uint64    `json:"resolved_gen"`
	ResolvedAt  time.Time `json:"resolved_at"`
}

// Relation links two memories.
type Relation struct {
	// Kind is supersedes, conflicts_with, required_with, validates or
	// derived_from.
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// Memory is one note with its anchors (DESIGN.md, "Memory record").
//
// Lifecycle fields (lifecycle.go, access.go): Confidence (0..1) is
// computed on every read (confidence.Of) — the stored value is the one
// last computed and is never read back. HalfLifeDays is the decay
// half-life (confidence.HalfLives by type). StaleSince is when the memory last went
// stale (an anchor changed, signature_changed or deleted), zero while it
// is fresh, kept by markStale whenever the memory is stored. ExpiresAt is
// when it expires (remember --expires; zero: never): review lists it and
// prune removes it. LastAccessedAt and AccessCount live in the access
// keyspace, not the record (WithAccess merges them in); the record fields
// stay as older stores wrote them.
type Memory struct {
	V              int        `json:"v"`
	ID             string     `json:"id"` // ULID
	Type           string     `json:"type"`
	Title          string     `json:"title"`
	Body           string     `json:"body"`
	Tags           []string   `json:"tags,omitempty"`
	Anchors        []Anchor   `json:"anchors"`
	Scope          string     `json:"scope"`
	Source         string     `json:"source"`
	Author         string     `json:"author,omitempty"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	VerifiedAt     time.Time  `json:"verified_at"`
	LastAccessedAt time.Time  `json:"last_accessed_at"`
	AccessCount    int        `json:"access_count"`
	Confidence     float64    `json:"confidence"`
	HalfLifeDays   float64    `json:"half_life_days"`
	Pinned         bool       `json:"pinned,omitempty"`
	NeedsReview    bool       `json:"needs_review,omitempty"`
	StaleSince     time.Time  `json:"stale_since,omitzero"`
	ExpiresAt      time.Time  `json:"expires_at,omitzero"`
	Relations      []Relation `json:"relations,omitempty"`
	GitCommit      string     `json:"git_commit,omitempty"`
	GitBranch      string     `json:"git_branch,omitempty"`
	EmbeddingModel string     `json:"embedding_model,omitempty"`
	// FileSum is, for a project memory, the SHA-256 of its Markdown file's
	// bytes as gloss last wrote or loaded them; "" when the memory has not
	// been synchronized with a file (personal memories, stores written
	// before memory files were the source of truth). See SyncMemoryFiles.
	FileSum string `json:"file_sum,omitempty"`

	// ReviewReason is why a person flagged the memory as wrong (Flag);
	// cleared with NeedsReview by a verify or a re-anchor.
	ReviewReason string `json:"review_reason,omitempty"`

	// Placement (how a memory remembered without a place was placed) and
	// Duplicates (near-duplicates found before it was stored) are set by
	// RememberBatch on new memories; they are not stored.
	Placement  string      `json:"-"`
	Duplicates []Duplicate `json:"-"`
	// SupersededBy are the ids of the memories that supersede this one,
	// set by Workspace.Annotate from the relation index; not stored.
	SupersededBy []string `json:"-"`
	// Decision is what a remember with an on-duplicate policy did
	// (RememberRequest.OnDuplicate); set on results only, not stored.
	Decision *Decision `json:"-"`

	// parts are the confidence parts lifecycle last computed (zero for a
	// memory not read through a workspace).
	parts confidence.Parts
	// fromSummary marks a memory built from its stored summary
	// (summaryMemory): no hashes, tokens or snapshots in its anchors.
	fromSummary bool
}

// Stale reports whether any anchor is changed, signature_changed or
// deleted.
func (m *Memory) Stale() bool {
	for _, a := range m.Anchors {
		if IsStale(a.Status) {
			return true
		}
	}
	return false
}

// clone returns a copy of m that does not share its anchors.
// defaultDates fills zero times of a memory read from a file or an
// import: created now, updated and verified when created.
func (m *Memory) defaultDates(now time.Time) {
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = m.CreatedAt
	}
	if m.VerifiedAt.IsZero() {
		m.VerifiedAt = m.CreatedAt
	}
}

func (m *Memory) clone() *Memory {
	c := *m
	c.Anchors = append([]Anchor(nil), m.Anchors...)
	return &c
}

// ValidateType returns an error naming the allowed types when t is not one.
func ValidateType(t string) error {
	for _, k := range Types {
		if k == t {
			return nil
		}
	}
	return fmt.Errorf("unknown memory type %q (want one of %s)", t, strings.Join(Types, ", "))
}

// DeriveTitle returns the first line of text cut to fields.MaxTitle
// characters (with "…" when cut), used when no title is given.
func DeriveTitle(text string) string {
	line := strings.TrimSpace(text)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	line = strings.TrimLeft(line, "# ")
	if utf8.RuneCountInString(line) <= fields.MaxTitle {
		return line
	}
	r := []rune(line)
	return strings.TrimSpace(string(r[:fields.MaxTitle-1])) + "…"
}
