package memory

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Review reasons: why a memory needs a look, most urgent first.
const (
	ReasonExpired       = "expired"        // ExpiresAt has passed
	ReasonNeedsReview   = "needs_review"   // someone flagged it (NeedsReview)
	ReasonConflicting   = "conflicting"    // a conflicts_with relation
	ReasonStale         = "stale"          // an anchor changed, signature_changed or deleted
	ReasonLowConfidence = "low_confidence" // confidence below LowConfidence
	ReasonUnused        = "unused"         // not read for UnusedDays
)

// Review actions: the one command that settles a reason.
const (
	ActionVerify = "verify" // gloss verify ID: still true of the code as it is
	ActionUpdate = "update" // rewrite the memory (gloss show ID --edit, gloss.update)
	ActionForget = "forget" // gloss forget ID (restorable for RestoreWindow)
	ActionRelate = "relate" // settle the conflict with a supersedes relation
)

// LowConfidence is the confidence under which a memory is listed for
// review and, when also unused, pruned: below 0.3 a memory has lost more
// than two half-lives' worth of trust (2^−2 = 0.25 for a user's memory
// nobody verified for twice its half-life).
const LowConfidence = 0.3

// UnusedDays is how long without a read (a hover, a search or context
// result, a show) and without a verification a memory counts as unused:
// about a quarter. GitHub Copilot's agent memory expires unused memories
// after 28 days; gloss memories are about code that changes more slowly,
// and unused ones are only listed, or pruned when their confidence is
// also low.
const UnusedDays = 90

// ReviewItem is one memory that needs a look, with why and the one
// action to take.
type ReviewItem struct {
	Memory *Memory
	// Reason is one of the Reason constants, Action one of the Action
	// constants; Detail says it for people ("stale for 12 days:
	// signature_changed").
	Reason string
	Action string
	Detail string
}

// Review returns the memories that need a look, most urgent reason
// first (the order of the Reason constants), then lowest confidence
// first; limit > 0 keeps that many. Each memory appears once, under its
// most urgent reason. Pinned memories are listed only when flagged,
// conflicting, expired or stale. Memories imported from git history are
// listed only when expired, flagged or conflicting: they are verified as
// of their commit, so old ones start with a low confidence, and a
// definition changed again since makes them stale by design (import-git).
func (w *Workspace) Review(limit int) ([]ReviewItem, error) {
	now := w.now()
	mems, err := w.selectMemories(func(m *Memory) bool {
		_, ok := reviewOf(m, now)
		return ok
	})
	if err != nil {
		return nil, err
	}
	var out []ReviewItem
	for _, m := range mems {
		if it, ok := reviewOf(m, now); ok {
			out = append(out, it)
		}
	}
	rank := map[string]int{ReasonExpired: 0, ReasonNeedsReview: 1, ReasonConflicting: 2, ReasonStale: 3, ReasonLowConfidence: 4, ReasonUnused: 5}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank[a.Reason] != rank[b.Reason] {
			return rank[a.Reason] < rank[b.Reason]
		}
		if a.Memory.Confidence != b.Memory.Confidence {
			return a.Memory.Confidence < b.Memory.Confidence
		}
		return a.Memory.ID < b.Memory.ID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// reviewOf returns m's review item at now, if it needs one.
func reviewOf(m *Memory, now time.Time) (ReviewItem, bool) {
	it := ReviewItem{Memory: m}
	switch {
	case expired(m, now):
		it.Reason, it.Action, it.Detail = ReasonExpired, ActionForget, "expired "+ago(now.Sub(m.ExpiresAt))+" ago"
	case m.NeedsReview:
		it.Reason, it.Action, it.Detail = ReasonNeedsReview, ActionUpdate, "flagged as possibly wrong"
	case conflicting(m) != "":
		it.Reason, it.Action, it.Detail = ReasonConflicting, ActionRelate, "conflicts with "+conflicting(m)
	case m.Source == "imported_git":
		return it, false // history: stale and old by design (see Review)
	case m.Stale():
		it.Reason, it.Detail = ReasonStale, "stale for "+ago(now.Sub(m.StaleSince))+": "+worstStatus(m)
		switch worstStatus(m) {
		case StatusDeleted:
			it.Action = ActionForget
		case StatusSignatureChanged:
			it.Action = ActionUpdate
		default:
			it.Action = ActionVerify
		}
	case m.Pinned:
		return it, false
	case m.Confidence < LowConfidence:
		it.Reason, it.Action = ReasonLowConfidence, ActionVerify
		it.Detail = fmt.Sprintf("confidence %.2f, not verified for %s", m.Confidence, ago(now.Sub(m.VerifiedAt)))
	case unused(m, now):
		it.Reason, it.Action = ReasonUnused, ActionForget
		it.Detail = "not read or verified for " + ago(now.Sub(lastUse(m)))
		if m.AccessCount == 0 {
			it.Detail = "never read, created " + ago(now.Sub(m.CreatedAt)) + " ago"
		}
	default:
		return it, false
	}
	return it, true
}

// expired reports whether m has an expiry that has passed at now.
func expired(m *Memory, now time.Time) bool {
	return !m.ExpiresAt.IsZero() && !now.Before(m.ExpiresAt)
}

// lastUse is the latest of m's creation, verification and last access.
func lastUse(m *Memory) time.Time {
	t := m.CreatedAt
	for _, u := range []time.Time{m.VerifiedAt, m.LastAccessedAt} {
		if u.After(t) {
			t = u
		}
	}
	return t
}

// unused reports whether m was neither read nor verified for UnusedDays
// at now (m's access fields must be filled: ApplyAccess, WithAccess).
func unused(m *Memory, now time.Time) bool {
	return days(now.Sub(lastUse(m))) >= UnusedDays
}

// conflicting returns the id of a memory m conflicts with, or "".
func conflicting(m *Memory) string {
	for _, r := range m.Relations {
		if r.Kind == "conflicts_with" {
			return r.ID
		}
	}
	return ""
}

// worstStatus is the most severe status of m's anchors: deleted, then
// signature_changed, then changed, else fresh.
func worstStatus(m *Memory) string {
	worst := StatusFresh
	sev := map[string]int{StatusChanged: 1, StatusSignatureChanged: 2, StatusDeleted: 3}
	for _, a := range m.Anchors {
		if sev[a.Status] > sev[worst] {
			worst = a.Status
		}
	}
	return worst
}

// days converts a duration to fractional days.
func days(d time.Duration) float64 { return d.Hours() / 24 }

// ago formats a duration in whole days for people: "0 days", "1 day",
// "12 days".
func ago(d time.Duration) string {
	n := max(int(days(d)), 0)
	if n == 1 {
		return "1 day"
	}
	return strconv.Itoa(n) + " days"
}

// ParseExpiry turns a remember --expires value into a time after now: a
// duration in days or weeks ("30d", "2w"), a Go duration ("36h"), a date
// ("2026-12-31", end of that day UTC) or an RFC 3339 time. It fails on
// anything else and on a time not after now.
func ParseExpiry(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	var t time.Time
	if n, unit, ok := dayUnit(s); ok {
		t = now.Add(time.Duration(n * unit * 24 * float64(time.Hour)))
	} else if d, err := time.ParseDuration(s); err == nil {
		t = now.Add(d)
	} else if day, err := time.Parse("2006-01-02", s); err == nil {
		t = day.Add(24*time.Hour - time.Second)
	} else if ts, err := time.Parse(time.RFC3339, s); err == nil {
		t = ts
	} else {
		return time.Time{}, fmt.Errorf("expiry %q is not a duration (30d, 2w, 36h), a date (2026-12-31) or an RFC 3339 time", s)
	}
	if !t.After(now) {
		return time.Time{}, fmt.Errorf("expiry %q is not in the future", s)
	}
	return t.UTC(), nil
}

// dayUnit parses "N d" or "N w" (N a positive number): N and the unit in
// days.
func dayUnit(s string) (n, unit float64, ok bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	switch s[len(s)-1] {
	case 'd':
		unit = 1
	case 'w':
		unit = 7
	default:
		return 0, 0, false
	}
	n, err := strconv.ParseFloat(s[:len(s)-1], 64)
	if err != nil || n <= 0 {
		return 0, 0, false
	}
	return n, unit, true
}
