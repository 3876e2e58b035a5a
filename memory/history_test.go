package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// historyCase is one anchored definition of the history fixture and what
// gloss must report for it after checking out the changed commit.
type historyCase struct {
	name string
	// base place: file and marker of the definition's first line.
	path, marker string
	// span, when set, anchors the single line containing it instead of the
	// whole definition.
	span string
	// withDoc anchors from the doc comment line above the definition.
	withDoc bool
	// expected after the change.
	status    string
	newPath   string // "" = same path
	newMarker string // "" = same marker; for deleted, ignored
}

// Base versions of the fixture files and their changed versions. Every
// definition ends before a blank line (testutil.DefLines).
var goBase = `package pkg

// Alpha doubles and adds one.
func Alpha(x int) int {
	y := x * 2
	return y + 1
}

// Beta appends a suffix.
func Beta(s string) string {
	return s + "-beta"
}

// Gamma sums below n.
func Gamma(n int) int {
	total := 0
	for i := 0; i < n; i++ {
		total += i
	}
	return total
}

// Delta counts non-empty items.
func Delta(items []string) int {
	count := 0
	for _, it := range items {
		if it != "" {
			count++
		}
	}
	return count
}

// Epsilon is the distance of a and b.
func Epsilon(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// Zeta is deleted later.
func Zeta() string {
	return "zeta value here"
}

// Eta squares and adds seven.
func Eta(v int) int {
	return v*v + 7
}
`

var goChanged = `package pkg

import "strings"

// prefix is new code inserted above Alpha.
var prefix = strings.Repeat("-", 3)

// Alpha doubles and adds one.
func Alpha(x int) int {
	y := x * 2
	return y + 1
}

// Beta appends a suffix.
func Beta(s string) string {
	return s + "-BETA"
}

// Gamma sums below n. The comment changed and the body was reformatted.
func Gamma(n int) int {
	total := 0 // running sum
	for i := 0;
		i < n;
		i++ {
		total += i
	}
	return total
}

// CountNonEmpty counts non-empty items (renamed from Delta).
func CountNonEmpty(items []string) int {
	count := 0
	for _, it := range items {
		if it != "" {
			count++
		}
	}
	return count
}

// Eta squares and adds seven.
func Eta(v int64) int64 {
	return v*v + 7
}
`

var goOther = `package pkg

// Epsilon is the distance of a and b (moved here).
func Epsilon(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}
`

var goTheta = `package pkg

// Theta lives in a file that is renamed.
func Theta(p, q int) int {
	return p*q - 1
}
`

var pyBase = `"""Fixture module."""


def alpha(x):
    y = x * 2
    return y + 1

def beta(s):
    return s + "-beta"

def gamma(n):
    total = 0
    for i in range(n):
        total += i
    return total

def delta(items):
    count = 0
    for it in items:
        if it != "":
            count += 1
    return count

def epsilon(a, b):
    if a > b:
        return a - b
    return b - a

def zeta():
    return "zeta value here"

def eta(v):
    return v * v + 7
`

var pyChanged = `"""Fixture module."""
import os

PREFIX = os.sep * 3


def alpha(x):
    y = x * 2
    return y + 1

def beta(s):
    return s + "-BETA"

def gamma(n):
    # running sum, reformatted
    total=0
    for i in range( n ):
        total+=i
    return total

def count_non_empty(items):
    count = 0
    for it in items:
        if it != "":
            count += 1
    return count

def eta(v, w=0):
    return v * v + 7
`

var pyOther = `def epsilon(a, b):
    if a > b:
        return a - b
    return b - a
`

var pyTheta = `def theta(p, q):
    return p * q - 1
`

var tsBase = `// Fixture module.

export function alpha(x: number): number {
  const y = x * 2;
  return y + 1;
}

export function beta(s: string): string {
  return s + "-beta";
}

export function gamma(n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += i;
  }
  return total;
}

export function delta(items: string[]): number {
  let count = 0;
  for (const it of items) {
    if (it !== "") {
      count++;
    }
  }
  return count;
}

export function epsilon(a: number, b: number): number {
  if (a > b) {
    return a - b;
  }
  return b - a;
}

export function zeta(): string {
  return "zeta value here";
}

export function eta(v: number): number {
  return v * v + 7;
}
`

var tsChanged = `// Fixture module.
import { sep } from "path";

export const prefix = sep.repeat(3);

export function alpha(x: number): number {
  const y = x * 2;
  return y + 1;
}

export function beta(s: string): string {
  return s + "-BETA";
}

export function gamma(n: number): number {
  /* running sum, reformatted */
  let total=0;
  for (let i=0; i<n; i++) { total += i; }
  return total;
}

export function countNonEmpty(items: string[]): number {
  let count = 0;
  for (const it of items) {
    if (it !== "") {
      count++;
    }
  }
  return count;
}

export function eta(v: bigint): bigint {
  return v * v + 7n;
}
`

var tsOther = `export function epsilon(a: number, b: number): number {
  if (a > b) {
    return a - b;
  }
  return b - a;
}
`

var tsTheta = `export function theta(p: number, q: number): number {
  return p * q - 1;
}
`

// TestHistory anchors memories in Go, Python and TypeScript, commits the
// eight kinds of change of the issue (insert above, body token, comment and
// reformat only, rename keeping body, move to another file, file rename,
// delete, signature only), checks the change out with git and asserts each
// memory's exact status and new lines; then checks out the base again and
// expects every memory fresh at its original place.
func TestHistory(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	base := map[string]string{
		"go.mod":         "module example.com/fx\n\ngo 1.22\n",
		"pkg/a.go":       goBase,
		"pkg/theta.go":   goTheta,
		"app/mod.py":     pyBase,
		"app/theta.py":   pyTheta,
		"src/mod.ts":     tsBase,
		"src/theta.ts":   tsTheta,
		"pyproject.toml": "[project]\nname = \"fx\"\nversion = \"0.1.0\"\n",
		"package.json":   `{"name": "fx", "version": "1.0.0"}`,
	}
	testutil.WriteFiles(t, repo, base)
	c0 := testutil.Commit(t, repo, "base")

	type lang struct {
		file, other, theta, thetaNew string
		changed, otherSrc            string
		names                        map[string]string // alpha, beta, ... markers in base
		renamed                      string            // marker of the renamed definition
	}
	langs := []lang{
		{file: "pkg/a.go", other: "pkg/other.go", theta: "pkg/theta.go", thetaNew: "pkg/renamed_theta.go", changed: goChanged, otherSrc: goOther,
			names:   map[string]string{"alpha": "func Alpha(", "beta": "func Beta(", "gamma": "func Gamma(", "delta": "func Delta(", "epsilon": "func Epsilon(", "zeta": "func Zeta(", "eta": "func Eta(", "theta": "func Theta("},
			renamed: "func CountNonEmpty("},
		{file: "app/mod.py", other: "app/other.py", theta: "app/theta.py", thetaNew: "app/renamed_theta.py", changed: pyChanged, otherSrc: pyOther,
			names:   map[string]string{"alpha": "def alpha(", "beta": "def beta(", "gamma": "def gamma(", "delta": "def delta(", "epsilon": "def epsilon(", "zeta": "def zeta(", "eta": "def eta(", "theta": "def theta("},
			renamed: "def count_non_empty("},
		{file: "src/mod.ts", other: "src/other.ts", theta: "src/theta.ts", thetaNew: "src/renamed_theta.ts", changed: tsChanged, otherSrc: tsOther,
			names:   map[string]string{"alpha": "function alpha(", "beta": "function beta(", "gamma": "function gamma(", "delta": "function delta(", "epsilon": "function epsilon(", "zeta": "function zeta(", "eta": "function eta(", "theta": "function theta("},
			renamed: "function countNonEmpty("},
	}
	var cases []historyCase
	for _, l := range langs {
		n := l.names
		cases = append(cases,
			historyCase{name: l.file + " a insert above", path: l.file, marker: n["alpha"], status: memory.StatusMoved},
			historyCase{name: l.file + " a span moved", path: l.file, marker: n["alpha"], span: "x * 2", status: memory.StatusMoved},
			historyCase{name: l.file + " b body token", path: l.file, marker: n["beta"], status: memory.StatusChanged},
			historyCase{name: l.file + " b span changed", path: l.file, marker: n["beta"], span: "-beta", status: memory.StatusChanged, newMarker: "-BETA"},
			historyCase{name: l.file + " c comment and format", path: l.file, marker: n["gamma"], status: memory.StatusMoved},
			historyCase{name: l.file + " d rename", path: l.file, marker: n["delta"], status: memory.StatusMoved, newMarker: l.renamed},
			historyCase{name: l.file + " e move file", path: l.file, marker: n["epsilon"], status: memory.StatusMoved, newPath: l.other},
			historyCase{name: l.file + " f rename file", path: l.theta, marker: n["theta"], status: memory.StatusMoved, newPath: l.thetaNew},
			historyCase{name: l.file + " g delete", path: l.file, marker: n["zeta"], status: memory.StatusDeleted},
			historyCase{name: l.file + " h signature", path: l.file, marker: n["eta"], status: memory.StatusSignatureChanged},
		)
	}
	// The Go Alpha memory is also anchored from its doc comment line.
	cases = append(cases, historyCase{name: "go doc-inclusive", path: "pkg/a.go", marker: "func Alpha(", withDoc: true, status: memory.StatusMoved})

	ctx := context.Background()
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		src := base[c.path]
		first, last := testutil.DefLines(t, src, c.marker)
		if c.span != "" {
			first = testutil.LineOf(t, src, c.span)
			last = first
		}
		if c.withDoc {
			first--
		}
		m, err := w.Remember(ctx, memory.RememberRequest{Text: "note on " + c.name, Path: filepath.Join(repo, c.path), StartLine: first, EndLine: last})
		if err != nil {
			t.Fatalf("%s: remember: %v", c.name, err)
		}
		wantKind := memory.KindSymbol
		if c.span != "" {
			wantKind = memory.KindSpan
		}
		if got := m.Anchors[0].Kind; got != wantKind {
			t.Fatalf("%s: anchor kind %s, want %s", c.name, got, wantKind)
		}
		ids[i] = m.ID
	}

	// Commit the changes: one commit holding all eight kinds per language.
	for _, l := range langs {
		testutil.WriteFiles(t, repo, map[string]string{l.file: l.changed, l.other: l.otherSrc})
		testutil.Git(t, repo, "mv", l.theta, l.thetaNew)
	}
	c1 := testutil.Commit(t, repo, "change everything")
	testutil.Git(t, repo, "checkout", "-q", c0)
	if res, err := w.Check(ctx); err != nil {
		t.Fatal(err)
	} else if res.Resolved != 0 {
		t.Errorf("check on the base resolved %d anchors, want 0 (nothing changed)", res.Resolved)
	}
	testutil.Git(t, repo, "checkout", "-q", c1)
	res, err := w.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*memory.Memory{}
	for _, m := range res.Memories {
		byID[m.ID] = m
	}
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(repo, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for i, c := range cases {
		m := byID[ids[i]]
		if m == nil {
			t.Fatalf("%s: memory lost", c.name)
		}
		a := m.Anchors[0]
		wantPath := c.path
		if c.newPath != "" {
			wantPath = c.newPath
		}
		if a.Status != c.status {
			t.Errorf("%s: status %s, want %s", c.name, a.Status, c.status)
		}
		if c.status == memory.StatusDeleted {
			if a.Path != c.path || a.Range.StartLine+1 != testutil.LineOf(t, base[c.path], c.marker) {
				t.Errorf("%s: deleted anchor at %s:%d, want its last known place %s:%d", c.name, a.Path, a.Range.StartLine+1, c.path, testutil.LineOf(t, base[c.path], c.marker))
			}
			if !m.Stale() {
				t.Errorf("%s: deleted memory not stale", c.name)
			}
			continue
		}
		marker := c.marker
		if c.span != "" {
			marker = c.span
		}
		if c.newMarker != "" {
			marker = c.newMarker
		}
		src := read(wantPath)
		first, last := testutil.DefLines(t, src, marker)
		if c.span != "" {
			first = testutil.LineOf(t, src, marker)
			last = first
		}
		if c.withDoc {
			// The anchor is the definition; the doc line is optional.
			first = testutil.LineOf(t, src, marker)
		}
		if a.Path != wantPath || a.Range.StartLine+1 != first || a.Range.LastLine()+1 != last {
			t.Errorf("%s: at %s:%d-%d, want %s:%d-%d", c.name, a.Path, a.Range.StartLine+1, a.Range.LastLine()+1, wantPath, first, last)
		}
		if stale := memory.IsStale(c.status); m.Stale() != stale {
			t.Errorf("%s: stale=%v, want %v", c.name, m.Stale(), stale)
		}
		if c.newMarker != "" && c.span == "" && !strings.Contains(a.Symbol, strings.TrimSuffix(strings.Fields(c.newMarker)[1], "(")) {
			t.Errorf("%s: symbol %s does not name the renamed definition %s", c.name, a.Symbol, c.newMarker)
		}
	}

	// Back to the base: every memory is fresh at its original place again.
	testutil.Git(t, repo, "checkout", "-q", c0)
	res, err = w.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Memories {
		for _, a := range m.Anchors {
			if a.Status != memory.StatusFresh || a.Path != a.OriginPath || a.Range.StartLine != a.OriginRange.StartLine {
				t.Errorf("after checkout back: %s %q is %s at %s:%d, want fresh at %s:%d", m.ID, m.Title, a.Status, a.Path, a.Range.StartLine+1, a.OriginPath, a.OriginRange.StartLine+1)
			}
		}
	}
}
