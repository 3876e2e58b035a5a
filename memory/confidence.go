package memory

import (
	"math"
	"time"
)

// Confidence of a memory is computed, never stored as truth: every read
// (get, List, a document resolution) sets Memory.Confidence from the
// record's lifecycle fields and the workspace clock (Options.Now), so a
// memory nobody re-verifies loses confidence day by day without a write.
// The formula, its parts and their defaults are in ConfidenceOf.

// HalfLives are the default decay half-lives in days per memory type: how
// long until a memory nobody verified is trusted half as much.
//
//   - error_pattern 120: fixes for errors go out of date with the
//     dependencies and tools that raised them;
//   - gotcha, module_insight, workflow 180: facts about how code behaves
//     and how work is done change with the code, at a pace of releases;
//   - pattern, dead_end 270: what was tried and what is idiomatic here
//     changes slowly;
//   - decision, convention, requirement 365: reasons and rules hold until
//     they are deliberately revisited;
//   - note 90: untyped notes are the least curated.
var HalfLives = map[string]float64{
	"gotcha": 180, "decision": 365, "convention": 365, "pattern": 270, "requirement": 365,
	"error_pattern": 120, "module_insight": 180, "workflow": 180, "dead_end": 270, "note": 90,
}

// DefaultHalfLifeDays is the half-life of a type missing from HalfLives.
const DefaultHalfLifeDays = 180

// StaleHalfLifeDays is the half-life, in days since the memory went stale
// (Memory.StaleSince), of the staleness part of confidence: a stale memory
// starts at StaleStart and halves every 30 days nobody looks at it, since
// the longer code and note disagree, the likelier the note is wrong.
const StaleHalfLifeDays = 30

// StaleStart is the staleness part of confidence the day a memory goes
// stale: the code it describes changed, so it is at best half as sure.
const StaleStart = 0.5

// ReviewFactor is the review part of confidence of a memory flagged
// NeedsReview (someone said it may be wrong): half.
const ReviewFactor = 0.5

// ConfidenceParts is a memory's confidence and the factors it is the
// product of (ConfidenceOf). Every part is in [0, 1].
type ConfidenceParts struct {
	// Decay is 2^(−age/halfLife) with age the days since VerifiedAt and
	// halfLife the memory's HalfLifeDays (HalfLives by type); 1 when
	// pinned.
	Decay float64 `json:"decay"`
	// Staleness is 1 for a memory whose anchors are fresh or moved, else
	// StaleStart × 2^(−days since StaleSince / StaleHalfLifeDays).
	Staleness float64 `json:"staleness"`
	// Trust is SourceTrust(Source).
	Trust float64 `json:"trust"`
	// Review is ReviewFactor when NeedsReview, else 1.
	Review float64 `json:"review"`
	// Value = Decay × Staleness × Trust × Review.
	Value float64 `json:"value"`
}

// Lifecycle holds the fields of a memory that its confidence depends on;
// both a Memory (Memory.Lifecycle) and a stored summary (View.Lifecycle)
// give one.
type Lifecycle struct {
	Type         string
	Source       string
	VerifiedAt   time.Time
	HalfLifeDays float64 // 0: HalfLives[Type]
	Pinned       bool
	NeedsReview  bool
	Stale        bool
	StaleSince   time.Time // zero: stale since now
}

// Lifecycle returns m's confidence inputs.
func (m *Memory) Lifecycle() Lifecycle {
	return Lifecycle{Type: m.Type, Source: m.Source, VerifiedAt: m.VerifiedAt, HalfLifeDays: m.HalfLifeDays,
		Pinned: m.Pinned, NeedsReview: m.NeedsReview, Stale: m.Stale(), StaleSince: m.StaleSince}
}

// ConfidenceOf computes a memory's confidence at time now:
//
//	confidence = decay × staleness × trust × review
//	decay      = 2^(−age/halfLife)            (1 when pinned)
//	staleness  = StaleStart × 2^(−staleAge/StaleHalfLifeDays)  (1 when not stale)
//	trust      = SourceTrust(source)
//	review     = ReviewFactor when needs_review, else 1
//
// with age the days since the memory was last verified (created, or
// `gloss verify`) and staleAge the days since it went stale. Decay is
// exponential decay with a half-life, as in radioactive decay and in
// forgetting-curve models of memory (Ebbinghaus 1885; the half-life form
// of Settles & Meeder, "A Trainable Spaced Repetition Model for Language
// Learning", ACL 2016: p = 2^(−Δ/h)). Negative ages (a clock set back)
// count as 0. The result is in [0, 1].
func ConfidenceOf(l Lifecycle, now time.Time) ConfidenceParts {
	p := ConfidenceParts{Decay: 1, Staleness: 1, Trust: SourceTrust(l.Source), Review: 1}
	if !l.Pinned {
		h := l.HalfLifeDays
		if h <= 0 {
			h = halfLifeOf(l.Type)
		}
		p.Decay = halfDecay(days(now.Sub(l.VerifiedAt)), h)
	}
	if l.Stale {
		since := l.StaleSince
		if since.IsZero() {
			since = now
		}
		p.Staleness = StaleStart * halfDecay(days(now.Sub(since)), StaleHalfLifeDays)
	}
	if l.NeedsReview {
		p.Review = ReviewFactor
	}
	p.Value = min(1, max(0, p.Decay*p.Staleness*p.Trust*p.Review))
	return p
}

// halfLifeOf returns the default half-life of a memory type in days.
func halfLifeOf(typ string) float64 {
	if h, ok := HalfLives[typ]; ok {
		return h
	}
	return DefaultHalfLifeDays
}

// halfDecay is 2^(−age/halfLife); age ≤ 0 gives 1.
func halfDecay(age, halfLife float64) float64 {
	if age <= 0 || halfLife <= 0 {
		return 1
	}
	return math.Exp2(-age / halfLife)
}

// days converts a duration to fractional days.
func days(d time.Duration) float64 { return d.Hours() / 24 }

// lifecycle brings a memory just read up to date with the clock: its
// half-life defaults by type, a stale memory without StaleSince (a record
// written before it existed, or anchors made stale by an unsaved document)
// is stale since its stale anchors were resolved (else now), and
// Confidence is recomputed (ConfidenceOf). It never writes.
func (w *Workspace) lifecycle(m *Memory) {
	now := w.now()
	if m.HalfLifeDays <= 0 {
		m.HalfLifeDays = halfLifeOf(m.Type)
	}
	if m.Stale() && m.StaleSince.IsZero() {
		m.StaleSince = staleSinceOf(m, now)
	}
	m.parts = ConfidenceOf(m.Lifecycle(), now)
	m.Confidence = m.parts.Value
}

// rankConfidence is the part of m's confidence that search and context
// ranking multiply by: Decay × Review. Trust and staleness are left out
// because ranking applies them as factors of their own (SourceTrust,
// StaleFactor), which were tuned on their own. A memory not read through
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
func (w *Workspace) Confidence(m *Memory) ConfidenceParts {
	return ConfidenceOf(m.Lifecycle(), w.now())
}

// Now returns the workspace clock's current time (Options.Now).
func (w *Workspace) Now() time.Time { return w.now() }
