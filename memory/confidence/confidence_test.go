package confidence

import (
	"testing"
	"time"
)

// TestOf checks each factor of the formula on its own and
// together.
func TestOf(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	for _, tc := range []struct {
		name string
		l    Lifecycle
		want float64
	}{
		{"verified now", Lifecycle{Type: "note", VerifiedAt: now}, 1},
		{"one half-life", Lifecycle{Type: "note", VerifiedAt: now.Add(-90 * day)}, 0.5},
		{"two half-lives of a gotcha", Lifecycle{Type: "gotcha", VerifiedAt: now.Add(-360 * day)}, 0.25},
		{"own half-life", Lifecycle{Type: "note", VerifiedAt: now.Add(-10 * day), HalfLifeDays: 10}, 0.5},
		{"pinned never decays", Lifecycle{Type: "note", VerifiedAt: now.Add(-900 * day), Pinned: true}, 1},
		{"clock set back", Lifecycle{Type: "note", VerifiedAt: now.Add(day)}, 1},
		{"stale today", Lifecycle{Type: "note", VerifiedAt: now, Stale: true, StaleSince: now}, 0.5},
		{"stale 30 days", Lifecycle{Type: "note", VerifiedAt: now, Stale: true, StaleSince: now.Add(-30 * day)}, 0.25},
		{"stale, no time yet", Lifecycle{Type: "note", VerifiedAt: now, Stale: true}, 0.5},
		{"agent", Lifecycle{Type: "note", VerifiedAt: now, Source: "agent"}, 0.9},
		{"needs review", Lifecycle{Type: "note", VerifiedAt: now, NeedsReview: true}, 0.5},
		{"all at once", Lifecycle{Type: "note", VerifiedAt: now.Add(-90 * day), Source: "imported_git", Stale: true, StaleSince: now, NeedsReview: true}, 0.5 * 0.5 * 0.6 * 0.5},
	} {
		got := Of(tc.l, now)
		if d := got.Value - tc.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: confidence %g (%+v), want %g", tc.name, got.Value, got, tc.want)
		}
	}
}

// TestSourceTrustOrder checks that what a person wrote outranks an
// agent's, which outranks git history, which outranks inference, and
// that an unknown or empty source is the user's.
func TestSourceTrustOrder(t *testing.T) {
	if SourceTrust("user") != 1 || SourceTrust("") != 1 || SourceTrust("someone") != 1 {
		t.Error("SourceTrust of user, \"\" and an unknown source: want 1")
	}
	if !(SourceTrust("agent") > SourceTrust("imported_file") && SourceTrust("imported_file") > SourceTrust("imported_git") && SourceTrust("imported_git") > SourceTrust("inferred")) {
		t.Error("SourceTrust order: want user > agent > imported_file > imported_git > inferred")
	}
}

// TestHalfLifeOf checks the type table and its default.
func TestHalfLifeOf(t *testing.T) {
	if HalfLifeOf("decision") != 365 || HalfLifeOf("note") != 90 || HalfLifeOf("no such type") != DefaultHalfLifeDays {
		t.Errorf("HalfLifeOf: decision %g, note %g, unknown %g", HalfLifeOf("decision"), HalfLifeOf("note"), HalfLifeOf("no such type"))
	}
}
