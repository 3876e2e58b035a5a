package memory

import (
	"time"

	"github.com/gloss-dev/gloss/memory/confidence"
)

// Confidence of a memory is computed, never stored as truth: every read
// (get, List, a document resolution) sets Memory.Confidence from the
// record's lifecycle fields and the workspace clock (Options.Now), so a
// memory nobody re-verifies loses confidence day by day without a write.
// The formula, its parts and their defaults are in package confidence
// (confidence.Of); this file gives it a memory's inputs.

// Lifecycle returns m's confidence inputs.
func (m *Memory) Lifecycle() confidence.Lifecycle {
	return confidence.Lifecycle{Type: m.Type, Source: m.Source, VerifiedAt: m.VerifiedAt, HalfLifeDays: m.HalfLifeDays,
		Pinned: m.Pinned, NeedsReview: m.NeedsReview, Stale: m.Stale(), StaleSince: m.StaleSince}
}

// lifecycle brings a memory just read up to date with the clock: its
// half-life defaults by type, a stale memory without StaleSince (a record
// written before it existed, or anchors made stale by an unsaved document)
// is stale since its stale anchors were resolved (else now), and
// Confidence is recomputed (confidence.Of). It never writes.
func (w *Workspace) lifecycle(m *Memory) {
	now := w.now()
	if m.HalfLifeDays <= 0 {
		m.HalfLifeDays = confidence.HalfLifeOf(m.Type)
	}
	if m.Stale() && m.StaleSince.IsZero() {
		m.StaleSince = staleSinceOf(m, now)
	}
	m.parts = confidence.Of(m.Lifecycle(), now)
	m.Confidence = m.parts.Value
}

// rankConfidence is the part of m's confidence that search and context
// ranking multiply by: Decay × Review. Trust and staleness are left out
// because ranking applies them as factors of their own
// (confidence.SourceTrust, StaleFactor), which were tuned on their own. A memory not read through
// a workspace gives its Confidence (1 when unset).
func (m *Memory) rankConfidence() float64 {
	if m.parts.Trust == 0 {
		if m.Confidence <= 0 {
			return 1
		}
		return m.Confidence
	}
	return m.parts.Decay * m.parts.Review
}

// staleSinceOf estimates when m went stale: the earliest resolution time
// of its stale anchors, else now.
func staleSinceOf(m *Memory, now time.Time) time.Time {
	var t time.Time
	for _, a := range m.Anchors {
		if IsStale(a.Status) && !a.ResolvedAt.IsZero() && (t.IsZero() || a.ResolvedAt.Before(t)) {
			t = a.ResolvedAt
		}
	}
	if t.IsZero() || t.After(now) {
		return now.UTC()
	}
	return t
}

// markStale keeps StaleSince in step with m's anchors before m is stored:
// set to now when m first goes stale, kept while it stays stale, cleared
// when it is fresh again (verified, or the code came back).
func markStale(m *Memory, now time.Time) {
	switch {
	case !m.Stale():
		m.StaleSince = time.Time{}
	case m.StaleSince.IsZero():
		m.StaleSince = now.UTC()
	}
}

// Confidence returns m's confidence parts at the workspace clock's now,
// for m as it is (after any resolution).
func (w *Workspace) Confidence(m *Memory) confidence.Parts {
	return confidence.Of(m.Lifecycle(), w.now())
}

// Now returns the workspace clock's current time (Options.Now).
func (w *Workspace) Now() time.Time { return w.now() }
