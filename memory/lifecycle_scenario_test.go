package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestLifecycleScenarios runs the files of testdata/lifecycle: memory
// lifecycle over simulated time (an injected clock, memory.Options.Now).
// Besides the commands of TestScenarios (write, edit, git, check, verify,
// forget), a file may use:
//
//	remember name=N at=P:L[-M] type=T [source=S] [pinned] [expires=E]
//	                        a memory of type T (default note), source S
//	                        (default user); prints nothing on success.
//	advance days=D          moves the clock D days forward.
//	confidence              per memory in name order: "N: C (decay D ×
//	                        staleness S × trust T × review R)" at the
//	                        clock's now, with "stale Xd" when stale.
//	search q=Q              memory.FusedSearch over memories: the names
//	                        best first with their scores.
//	access name=N...        records one access of each named memory and
//	                        flushes.
//	review                  Workspace.Review: "N: reason → action (detail)".
//	prune [dry]             Workspace.Prune: "N: reason (skipped: …)".
//
// Regenerate with go test ./memory -run TestLifecycleScenarios -rewrite.
func TestLifecycleScenarios(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata", "lifecycle"), func(t *testing.T, path string) {
		if !strings.HasSuffix(path, ".txt") {
			t.Skip("not a scenario file")
		}
		gh := testutil.Hermetic(t)
		repo := testutil.InitRepo(t)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		w, err := memory.Open(repo, memory.Options{Home: gh, Author: "scenario", Embedder: "none", Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		s := &scenario{repo: repo, w: w, ids: map[string]string{}}
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			return s.redact(runLifecycle(t, s, td, &now))
		})
	})
}

func runLifecycle(t *testing.T, s *scenario, td *datadriven.TestData, now *time.Time) string {
	ctx := context.Background()
	switch td.Cmd {
	case "remember":
		return lifeRemember(ctx, t, s, td)
	case "advance":
		var d int
		td.ScanArgs(t, "days", &d)
		*now = now.AddDate(0, 0, d)
		return ""
	case "confidence":
		var b strings.Builder
		for _, name := range s.names() {
			m, err := s.w.Get(s.ids[name])
			if err != nil {
				td.Fatalf(t, "%v", err)
			}
			p := s.w.Confidence(m)
			fmt.Fprintf(&b, "%s: %.2f (decay %.2f × staleness %.2f × trust %.2f × review %.2f)", name, p.Value, p.Decay, p.Staleness, p.Trust, p.Review)
			if m.Stale() {
				fmt.Fprintf(&b, " stale %.0fd", now.Sub(m.StaleSince).Hours()/24)
			}
			b.WriteByte('\n')
		}
		return b.String()
	case "search":
		res, err := s.w.FusedSearch(ctx, memory.SearchRequest{Query: arg(t, td, "q"), Kind: memory.ResultMemory})
		if err != nil {
			return "error: " + err.Error()
		}
		var b strings.Builder
		for _, r := range res {
			fmt.Fprintf(&b, "%s %.5f (confidence × %.3f, trust × %.2f, freshness × %.2f)\n", r.Memory.ID, r.Score, r.Explain.Confidence, r.Explain.Trust, r.Explain.Freshness)
		}
		return b.String()
	case "access":
		for _, a := range td.CmdArgs {
			if a.Key == "name" {
				for _, v := range a.Vals {
					s.w.RecordAccess(s.ids[v])
				}
			}
		}
		if err := s.w.FlushAccess(); err != nil {
			return "error: " + err.Error()
		}
		return ""
	case "review":
		items, err := s.w.Review(0)
		if err != nil {
			return "error: " + err.Error()
		}
		var b strings.Builder
		for _, it := range items {
			fmt.Fprintf(&b, "%s: %s → %s (%s)\n", it.Memory.ID, it.Reason, it.Action, it.Detail)
		}
		return b.String()
	case "prune":
		items, err := s.w.Prune(memory.PruneRequest{DryRun: td.HasArg("dry")})
		if err != nil {
			return "error: " + err.Error()
		}
		var b strings.Builder
		for _, it := range items {
			fmt.Fprintf(&b, "%s: %s (%s)", s.redact(it.Memory.ID), it.Reason, it.Detail)
			if it.Skipped != "" {
				fmt.Fprintf(&b, " skipped: %s", it.Skipped)
			} else if !td.HasArg("dry") {
				for name, id := range s.ids {
					if id == it.Memory.ID {
						delete(s.ids, name) // forgotten
					}
				}
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	return s.run(t, td)
}

// lifeRemember is the remember command of lifecycle scenarios.
func lifeRemember(ctx context.Context, t *testing.T, s *scenario, td *datadriven.TestData) string {
	name := arg(t, td, "name")
	req := memory.RememberRequest{Text: "memory " + name, Type: "note"}
	if td.HasArg("text") {
		req.Text = arg(t, td, "text")
	}
	if td.HasArg("type") {
		req.Type = arg(t, td, "type")
	}
	if td.HasArg("source") {
		req.Source = arg(t, td, "source")
	}
	req.Pinned = td.HasArg("pinned")
	if td.HasArg("expires") {
		e, err := memory.ParseExpiry(arg(t, td, "expires"), s.w.Now())
		if err != nil {
			return "error: " + err.Error()
		}
		req.ExpiresAt = e
	}
	at := arg(t, td, "at")
	p, lines, _ := strings.Cut(at, ":")
	first, last, _ := strings.Cut(lines, "-")
	req.Path = s.abs(p)
	req.StartLine, _ = strconv.Atoi(first)
	req.EndLine, _ = strconv.Atoi(last)
	if _, err := s.w.Index(ctx); err != nil {
		td.Fatalf(t, "index: %v", err)
	}
	m, err := s.w.Remember(ctx, req)
	if err != nil {
		return "error: " + err.Error()
	}
	s.ids[name] = m.ID
	return ""
}
