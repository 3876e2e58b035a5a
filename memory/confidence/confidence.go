// Package confidence is the confidence and trust math of memories: how
// sure gloss is that a memory still holds, as the product of its decay
// since it was last verified, its staleness, the trust of its source and
// its review flag (Of). It knows nothing of stores or workspaces: its
// input is a Lifecycle, the few fields of a memory (memory.Memory) or a
// stored summary (memory.View) that confidence depends on, and a clock
// reading.
//
// Confidence is computed, never stored as truth: every read of a memory
// sets its confidence from the record's lifecycle fields and the
// workspace clock, so a memory nobody re-verifies loses confidence day by
// day without a write.
package confidence

import (
	"math"
	"time"
)

// HalfLives are the default decay half-lives in days per memory type
// (memory.Memory.Type): how long until a memory nobody verified is
// trusted half as much.
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

// DefaultHalfLifeDays is the half-life in days of a type missing from
// HalfLives.
const DefaultHalfLifeDays = 180

// StaleHalfLifeDays is the half-life, in days since the memory went stale
// (Lifecycle.StaleSince), of the staleness part of confidence: a stale
// memory starts at StaleStart and halves every 30 days nobody looks at
// it, since the longer code and note disagree, the likelier the note is
// wrong.
const StaleHalfLifeDays = 30

// StaleStart is the staleness part of confidence the day a memory goes
// stale: the code it describes changed, so it is at best half as sure.
const StaleStart = 0.5

// ReviewFactor is the review part of confidence of a memory flagged
// NeedsReview (someone said it may be wrong): half.
const ReviewFactor = 0.5

// Parts is a memory's confidence and the factors it is the product of
// (Of). Every part is in [0, 1]; the JSON names are the fields' in
// snake case.
type Parts struct {
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
// both a memory (memory.Memory.Lifecycle) and a stored summary
// (memory.View.Lifecycle) give one.
type Lifecycle struct {
	// Type is the memory type (gotcha, decision, …, note): it picks the
	// default half-life (HalfLives).
	Type string
	// Source is who wrote the memory (user, agent, imported_file,
	// imported_git, inferred): it picks the trust (SourceTrust).
	Source string
	// VerifiedAt is when the memory was created or last verified.
	VerifiedAt time.Time
	// HalfLifeDays is the memory's own half-life in days; 0 means
	// HalfLifeOf(Type).
	HalfLifeDays float64
	// Pinned memories never decay.
	Pinned bool
	// NeedsReview is set when someone flagged the memory as wrong.
	NeedsReview bool
	// Stale is true when an anchor's code changed or was deleted.
	Stale bool
	// StaleSince is when the memory went stale; zero means stale since
	// now.
	StaleSince time.Time
}

// Of computes a memory's confidence at time now:
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
func Of(l Lifecycle, now time.Time) Parts {
	p := Parts{Decay: 1, Staleness: 1, Trust: SourceTrust(l.Source), Review: 1}
	if !l.Pinned {
		h := l.HalfLifeDays
		if h <= 0 {
			h = HalfLifeOf(l.Type)
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

// HalfLifeOf returns the default half-life in days of a memory type:
// HalfLives[typ], else DefaultHalfLifeDays.
func HalfLifeOf(typ string) float64 {
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
