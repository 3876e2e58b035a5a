package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// anchorView is the JSON shape of an anchor in CLI output. Lines are
// 1-based and inclusive.
type anchorView struct {
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

// memoryView is the JSON shape of a memory in CLI output.
type memoryView struct {
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
	Anchors    []anchorView `json:"anchors"`
}

func viewOf(m *memory.Memory) memoryView {
	v := memoryView{ID: m.ID, Type: m.Type, Title: m.Title, Body: m.Body, Tags: m.Tags, Stale: m.Stale(), Scope: m.Scope, Source: m.Source,
		Author: m.Author, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, VerifiedAt: m.VerifiedAt, Anchors: []anchorView{}}
	for _, a := range m.Anchors {
		av := anchorView{Path: a.Path, Symbol: a.Symbol, Kind: a.Kind, StartLine: a.Range.StartLine + 1, EndLine: a.Range.LastLine() + 1, Status: a.Status}
		if a.OriginPath != a.Path || a.OriginRange.StartLine != a.Range.StartLine || a.OriginRange.LastLine() != a.Range.LastLine() {
			av.OriginPath, av.OriginStartLine, av.OriginEndLine = a.OriginPath, a.OriginRange.StartLine+1, a.OriginRange.LastLine()+1
		}
		v.Anchors = append(v.Anchors, av)
	}
	return v
}

func views(ms []*memory.Memory) []memoryView {
	out := make([]memoryView, 0, len(ms))
	for _, m := range ms {
		out = append(out, viewOf(m))
	}
	return out
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printLine prints v as one compact JSON line (JSON Lines output).
func printLine(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

// printMemory prints one memory in the readable format.
func printMemory(w io.Writer, m *memory.Memory, withBody bool) {
	mark := "ok   "
	if m.Stale() {
		mark = "STALE"
	}
	fmt.Fprintf(w, "%s  %s  [%s] %s\n", m.ID, mark, m.Type, m.Title)
	for _, a := range m.Anchors {
		fmt.Fprintf(w, "    %-17s %s", a.Status, placeOf(a))
		if a.Symbol != "" {
			fmt.Fprintf(w, "  %s", a.Symbol)
		}
		fmt.Fprintln(w)
	}
	if withBody {
		fmt.Fprintf(w, "    by %s, %s", orDash(m.Author), m.CreatedAt.Local().Format("2006-01-02 15:04"))
		if len(m.Tags) > 0 {
			fmt.Fprintf(w, " · tags: %s", strings.Join(m.Tags, ", "))
		}
		fmt.Fprintf(w, " · %s\n\n", m.Scope)
		for _, l := range strings.Split(m.Body, "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}

func placeOf(a memory.Anchor) string {
	s := fmt.Sprintf("%s:%s", a.Path, lineSpan(a.Range.StartLine+1, a.Range.LastLine()+1))
	if a.OriginPath != a.Path {
		s += fmt.Sprintf(" (was %s:%s)", a.OriginPath, lineSpan(a.OriginRange.StartLine+1, a.OriginRange.LastLine()+1))
	} else if a.OriginRange.StartLine != a.Range.StartLine || a.OriginRange.LastLine() != a.Range.LastLine() {
		s += fmt.Sprintf(" (was %s)", lineSpan(a.OriginRange.StartLine+1, a.OriginRange.LastLine()+1))
	}
	return s
}

func lineSpan(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
