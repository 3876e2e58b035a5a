package memory

import (
	"fmt"
	"path"
	"strings"

	"github.com/gloss-dev/gloss/scip"
)

// Filter narrows a list of memories. The zero Filter keeps every memory.
type Filter struct {
	// Type keeps memories of this type ("" any).
	Type string `json:"type,omitempty"`
	// Tag keeps memories with this tag ("" any).
	Tag string `json:"tag,omitempty"`
	// Path keeps memories with an anchor whose workspace-relative path
	// matches this pattern (path.Match syntax; a pattern without wildcards
	// also matches every path below it as a directory).
	Path string `json:"path,omitempty"`
	// Symbol keeps memories with an anchor on this SCIP symbol, or on a
	// definition of this name (scip.DisplayName: "Execute" for
	// Command#Execute()).
	Symbol string `json:"symbol,omitempty"`
	// Stale is "" or "include" (keep all), "exclude" (only fresh ones) or
	// "only" (only stale ones).
	Stale string `json:"stale,omitempty"`
	// MinConfidence keeps memories of at least this confidence (0..1).
	MinConfidence float64 `json:"min_confidence,omitempty"`
	// Superseded is "" or "include" (keep all), "exclude" (drop memories
	// another one supersedes) or "only"; it reads Memory.SupersededBy,
	// which the caller sets (Workspace.Annotate; FusedSearch does).
	Superseded string `json:"superseded,omitempty"`
}

// Validate reports a malformed filter: an unknown Type (ValidateType),
// Stale or Superseded value, a bad Path pattern or a confidence outside 0..1.
func (f Filter) Validate() error {
	if f.Type != "" {
		if err := ValidateType(f.Type); err != nil {
			return err
		}
	}
	switch f.Stale {
	case "", "include", "exclude", "only":
	default:
		return fmt.Errorf("stale must be include, exclude or only, not %q", f.Stale)
	}
	switch f.Superseded {
	case "", "include", "exclude", "only":
	default:
		return fmt.Errorf("superseded must be include, exclude or only, not %q", f.Superseded)
	}
	if f.Path != "" {
		if _, err := path.Match(f.Path, ""); err != nil {
			return fmt.Errorf("bad path pattern %q: %v", f.Path, err)
		}
	}
	if f.MinConfidence < 0 || f.MinConfidence > 1 {
		return fmt.Errorf("min confidence %g is outside 0..1", f.MinConfidence)
	}
	return nil
}

// Empty reports whether f keeps every memory.
func (f Filter) Empty() bool { return f == Filter{} }

// Keep reports whether m passes f.
func (f Filter) Keep(m *Memory) bool {
	switch {
	case f.Type != "" && m.Type != f.Type,
		f.Tag != "" && !hasTag(m.Tags, f.Tag),
		f.Stale == "exclude" && m.Stale(),
		f.Stale == "only" && !m.Stale(),
		f.MinConfidence > 0 && m.Confidence < f.MinConfidence,
		f.Superseded == "exclude" && m.Superseded(),
		f.Superseded == "only" && !m.Superseded():
		return false
	}
	if f.Path == "" && f.Symbol == "" {
		return true
	}
	for _, a := range m.Anchors {
		if (f.Path == "" || PathMatches(f.Path, a.Path)) && (f.Symbol == "" || a.Symbol == f.Symbol || scip.DisplayName(a.Symbol) == f.Symbol) {
			return true
		}
	}
	return false
}

func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if strings.EqualFold(t, tag) {
			return true
		}
	}
	return false
}

// PathMatches matches the workspace-relative path rel against pattern
// (path.Match), or, for a pattern without wildcards, against it as a
// directory prefix.
func PathMatches(pattern, rel string) bool {
	if ok, _ := path.Match(pattern, rel); ok {
		return true
	}
	if !strings.ContainsAny(pattern, "*?[") {
		return strings.HasPrefix(rel, strings.TrimSuffix(pattern, "/")+"/")
	}
	return false
}
