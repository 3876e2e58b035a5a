// Package memfile is the format of committed memory files: a project
// memory mirrored as Markdown with YAML front matter (Header, its anchors
// as Anchor) under Dir, to be committed with the code and read back by
// every clone (DESIGN.md "Storage"). It parses and renders that
// format only; turning a Header into a memory, and reading and writing
// the files of a workspace, is package memory's.
//
// YAML is gopkg.in/yaml.v3 (YAML 1.2); the front matter is the Jekyll /
// Hugo convention: the document starts with a "---" line, the YAML
// follows, and a second "---" line ends it.
package memfile

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/gloss-dev/gloss/index"
)

// Dir is where project-scope memories are mirrored as Markdown files with
// YAML front matter, one <id>.md per memory, relative to the workspace
// root (slash-separated).
const Dir = ".gloss/memories"

// Anchor is an anchor as written in a memory file: everything a clone
// needs to re-resolve it (DESIGN.md "Anchors and staleness") except the
// local resolution state (status, file hash, index generation), which each
// checkout computes itself. Lines is 1-based and inclusive, for readers;
// Range is the exact last known range, 0-based, as
// [start line, start column, end line, end column, start byte, end byte]
// (RangeSeq; columns are UTF-16 code units as in index.Range). Files
// written before these fields existed carry only path, symbol and lines
// ("legacy" anchors, Legacy).
type Anchor struct {
	Path          string       `yaml:"path"`
	Symbol        string       `yaml:"symbol,omitempty"`
	Lines         string       `yaml:"lines"`
	Kind          string       `yaml:"kind,omitempty"`
	Range         FlowSeq[int] `yaml:"range,omitempty"`
	ContentHash   string       `yaml:"content_hash,omitempty"`
	SignatureHash string       `yaml:"signature_hash,omitempty"`
	BodyHash      string       `yaml:"body_hash,omitempty"`
	BodyUnique    bool         `yaml:"body_unique,omitempty"`
	DefKind       string       `yaml:"def_kind,omitempty"`
	DefName       string       `yaml:"def_name,omitempty"`
	// OriginPath and OriginRange are where the anchor was made or last
	// verified (Range's layout).
	OriginPath    string          `yaml:"origin_path,omitempty"`
	OriginRange   FlowSeq[int]    `yaml:"origin_range,omitempty"`
	GitCommit     string          `yaml:"git_commit,omitempty"`
	GitBlob       string          `yaml:"git_blob,omitempty"`
	Snapshot      Text            `yaml:"snapshot,omitempty"`
	ContextBefore []string        `yaml:"context_before,omitempty"`
	ContextAfter  []string        `yaml:"context_after,omitempty"`
	Tokens        FlowSeq[string] `yaml:"tokens,omitempty"`
}

// Relation is a typed link from the memory to another one as written in
// a memory file (memory.Relation): Kind is supersedes, conflicts_with,
// required_with, validates or derived_from, ID the other memory's id.
type Relation struct {
	Kind string `yaml:"kind"`
	ID   string `yaml:"id"`
}

// Header is the YAML front matter of a memory file. Every field is read
// back (memory.Workspace.SyncMemoryFiles); Scope is written only for
// personal memories (exports): files under Dir are project scope.
// ExpiresAt is memory.Memory.ExpiresAt; HalfLife is
// memory.Memory.HalfLifeDays in days, written only when it is not its
// type's default (confidence.HalfLives). Local state (stale_since,
// confidence, accesses) is not written: each clone computes its own.
// Times are RFC 3339 (yaml.v3's time.Time form).
type Header struct {
	ID          string     `yaml:"id"`
	Type        string     `yaml:"type"`
	Title       string     `yaml:"title"`
	Tags        []string   `yaml:"tags,omitempty"`
	Anchors     []Anchor   `yaml:"anchors,omitempty"`
	Author      string     `yaml:"author,omitempty"`
	CreatedAt   time.Time  `yaml:"created_at"`
	UpdatedAt   time.Time  `yaml:"updated_at"`
	VerifiedAt  time.Time  `yaml:"verified_at,omitempty"`
	Scope       string     `yaml:"scope,omitempty"`
	Source      string     `yaml:"source,omitempty"`
	Pinned      bool       `yaml:"pinned,omitempty"`
	NeedsReview bool       `yaml:"needs_review,omitempty"`
	Relations   []Relation `yaml:"relations,omitempty"`
	GitCommit   string     `yaml:"git_commit,omitempty"`
	GitBranch   string     `yaml:"git_branch,omitempty"`
	// ReviewReason is why a person flagged the memory
	// (memory.Memory.ReviewReason).
	ReviewReason string    `yaml:"review_reason,omitempty"`
	ExpiresAt    time.Time `yaml:"expires_at,omitempty"`
	HalfLife     float64   `yaml:"half_life_days,omitempty"`
}

// FlowSeq is a list written in YAML flow style ([a, b, c]) to keep
// machine fields of memory files on one line.
type FlowSeq[T any] []T

// MarshalYAML implements yaml.Marshaler: s as a flow-style sequence.
func (s FlowSeq[T]) MarshalYAML() (any, error) {
	var n yaml.Node
	if err := n.Encode([]T(s)); err != nil {
		return nil, err
	}
	n.Style = yaml.FlowStyle
	return &n, nil
}

// Text is a multi-line string of code (Anchor.Snapshot). yaml.v3 v3.0.1
// writes a string whose first line starts with a tab as a literal block
// scalar (|-) that its own decoder rejects ("found a tab character where
// an indentation space is expected"); such a string is written
// double-quoted (tabs escaped as \t) instead. Other strings are written
// as a plain string is.
type Text string

// MarshalYAML implements yaml.Marshaler (see Text).
func (s Text) MarshalYAML() (any, error) {
	if !strings.HasPrefix(string(s), "\t") {
		return string(s), nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(s), Style: yaml.DoubleQuotedStyle}, nil
}

// RangeSeq is r as Anchor.Range writes it: [start line, start column, end
// line, end column, start byte, end byte], all 0-based.
func RangeSeq(r index.Range) FlowSeq[int] {
	return FlowSeq[int]{r.StartLine, r.StartCol, r.EndLine, r.EndCol, r.StartByte, r.EndByte}
}

// SeqRange reads what RangeSeq wrote; ok is false unless s has 6 numbers
// making a range that does not end before it starts or hold a negative.
func SeqRange(s FlowSeq[int]) (r index.Range, ok bool) {
	if len(s) != 6 {
		return index.Range{}, false
	}
	r = index.Range{StartLine: s[0], StartCol: s[1], EndLine: s[2], EndCol: s[3], StartByte: s[4], EndByte: s[5]}
	if r.StartLine < 0 || r.EndLine < r.StartLine || r.StartCol < 0 || r.EndCol < 0 || r.StartByte < 0 || r.EndByte < r.StartByte {
		return index.Range{}, false
	}
	return r, true
}

// Legacy reports whether a was written before memory files carried
// hashes (only path, symbol and lines).
func (a Anchor) Legacy() bool { return a.ContentHash == "" }

// CheckRelPath accepts clean, slash-separated workspace-relative paths
// only: no absolute paths, no "..", no backslashes. The error names p.
func CheckRelPath(p string) error {
	if p == "" || path.IsAbs(p) || strings.Contains(p, "\\") || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || p == "." {
		return fmt.Errorf("anchor path %q is not a clean path inside the workspace", p)
	}
	return nil
}

// ParseLines parses Anchor.Lines, "START-END" (1-based, inclusive; a
// single "N" is N-N), into 0-based first and last lines. It fails on
// anything else, a line below 1 or END before START.
func ParseLines(s string) (first, last int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok {
		b = a
	}
	first, err1 := strconv.Atoi(strings.TrimSpace(a))
	last, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || first < 1 || last < first {
		return 0, 0, fmt.Errorf("lines %q: want START-END, 1-based", s)
	}
	return first - 1, last - 1, nil
}

// Doc renders a Markdown document with YAML front matter: the header (any
// YAML-encodable value, such as a Header; 2-space indent) between "---"
// lines, a blank line, then body trimmed, ending in a newline.
func Doc(header any, body string) []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(header)
	_ = enc.Close()
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(body))
	b.WriteString("\n")
	return b.Bytes()
}

// Parse splits a memory file into its front matter and body (trimmed).
// CRLF line ends are read as LF. It fails on a missing or unclosed front
// matter, malformed YAML and unresolved merge conflicts (conflictLine);
// the error names the 1-based line when it can.
func Parse(data []byte) (Header, string, error) {
	if n := conflictLine(data); n > 0 {
		return Header{}, "", fmt.Errorf("line %d: unresolved merge conflict (<<<<<<< … >>>>>>>): resolve it and save the file", n)
	}
	var h Header
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return h, "", fmt.Errorf("memory file does not start with --- (YAML front matter)")
	}
	front, body, ok := strings.Cut(s[4:], "\n---\n")
	if !ok {
		if f, found := strings.CutSuffix(s[4:], "\n---"); found {
			front, body, ok = f, "", true
		}
	}
	if !ok {
		return h, "", fmt.Errorf("memory file front matter is not closed with ---")
	}
	if err := yaml.Unmarshal([]byte(front), &h); err != nil {
		return h, "", fmt.Errorf("memory file front matter: %w", err)
	}
	return h, strings.TrimSpace(body), nil
}

// conflictLine returns the 1-based line of the first merge-conflict block
// in data — a "<<<<<<<" line, later a "=======" line, later a ">>>>>>>"
// line, as git writes them — or 0. Single marker-like lines (a memory
// about merge conflicts) are not conflicts.
func conflictLine(data []byte) int {
	start, stage := 0, 0
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimRight(l, "\r")
		switch {
		case isMarker(l, "<<<<<<<"):
			start, stage = i+1, 1
		case stage == 1 && l == "=======":
			stage = 2
		case stage == 2 && isMarker(l, ">>>>>>>"):
			return start
		}
	}
	return 0
}

func isMarker(l, m string) bool {
	return l == m || strings.HasPrefix(l, m+" ")
}
