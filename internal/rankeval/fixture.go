package rankeval

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/memory"
)

// MemorySpec is one hand-written memory of a golden set, as read by
// ParseMemories: a stable Key (queries name it; memory ids change on every
// run), the memory's fields, and its place: a unique definition name
// (Symbol), or the lines of Path from the first line containing Marker to
// Extra lines after it.
type MemorySpec struct {
	Key    string
	Type   string
	Tags   []string
	Title  string
	Body   string
	Symbol string
	Path   string
	Marker string
	Extra  int
	// Line is the 1-based line of the block's header in its file.
	Line int
}

// ParseMemories reads memory blocks: lines starting with '#' outside a
// block are comments; a block is
//
//	@ KEY TYPE TAGS           (TAGS comma-separated, or - for none)
//	at: sym NAME              (or: at: span PATH +N MARKER)
//	TITLE
//	BODY, one or more lines up to a blank line
//
// It fails on the first malformed block or repeated key, naming its line.
func ParseMemories(r io.Reader) ([]MemorySpec, error) {
	var out []MemorySpec
	var cur *MemorySpec
	var body []string
	seen := map[string]bool{}
	flush := func() error {
		if cur == nil {
			return nil
		}
		if cur.Title == "" || len(body) == 0 {
			return fmt.Errorf("line %d: memory %s needs a title and a body", cur.Line, cur.Key)
		}
		cur.Body = strings.Join(body, "\n")
		out = append(out, *cur)
		cur, body = nil, nil
		return nil
	}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		var err error
		switch {
		case line == "":
			err = flush()
		case cur == nil && strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "@ "):
			if err = flush(); err == nil {
				cur, err = parseHeader(line, n)
			}
			if err == nil && seen[cur.Key] {
				err = fmt.Errorf("line %d: key %s repeated", n, cur.Key)
			}
			if cur != nil {
				seen[cur.Key] = true
			}
		case cur == nil:
			err = fmt.Errorf("line %d: text outside a memory block", n)
		case strings.HasPrefix(line, "at: "):
			err = cur.parseAt(strings.TrimPrefix(line, "at: "), n)
		case cur.Title == "":
			cur.Title = line
		default:
			body = append(body, line)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, flush()
}

func parseHeader(line string, n int) (*MemorySpec, error) {
	f := strings.Fields(strings.TrimPrefix(line, "@ "))
	if len(f) != 3 {
		return nil, fmt.Errorf("line %d: want \"@ KEY TYPE TAGS\", got %q", n, line)
	}
	if err := memory.ValidateType(f[1]); err != nil {
		return nil, fmt.Errorf("line %d: %w", n, err)
	}
	s := &MemorySpec{Key: f[0], Type: f[1], Line: n}
	if f[2] != "-" {
		s.Tags = strings.Split(f[2], ",")
	}
	return s, nil
}

// parseAt reads "sym NAME" or "span PATH +N MARKER".
func (s *MemorySpec) parseAt(at string, n int) error {
	kind, rest, _ := strings.Cut(at, " ")
	switch kind {
	case "sym":
		s.Symbol = strings.TrimSpace(rest)
		if s.Symbol != "" {
			return nil
		}
	case "span":
		f := strings.SplitN(rest, " ", 3)
		if len(f) == 3 && strings.HasPrefix(f[1], "+") {
			extra, err := strconv.Atoi(f[1][1:])
			if err == nil && extra >= 0 {
				s.Path, s.Extra, s.Marker = f[0], extra, f[2]
				return nil
			}
		}
	}
	return fmt.Errorf("line %d: want \"at: sym NAME\" or \"at: span PATH +N MARKER\", got %q", n, at)
}

// Request returns the remember request of s in the workspace at root: a
// symbol anchor, or the lines of the span found by reading root/Path. It
// fails when the marker is not in the file.
func (s MemorySpec) Request(root string) (memory.RememberRequest, error) {
	req := memory.RememberRequest{Text: s.Body, Title: s.Title, Type: s.Type, Tags: s.Tags, Symbol: s.Symbol}
	if s.Path == "" {
		return req, nil
	}
	full := filepath.Join(root, filepath.FromSlash(s.Path))
	b, err := os.ReadFile(full)
	if err != nil {
		return req, fmt.Errorf("memory %s: %w", s.Key, err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s.Marker) {
			req.Path, req.StartLine, req.EndLine = full, i+1, i+1+s.Extra
			return req, nil
		}
	}
	return req, fmt.Errorf("memory %s: marker %q not in %s", s.Key, s.Marker, s.Path)
}

// Query kinds of a golden set (issue #15, "Tests").
const (
	// KindIdentifier queries name identifiers from the code.
	KindIdentifier = "identifier"
	// KindParaphrase queries are questions sharing no content word (after
	// identifier splitting, stop words and stemming) with their targets.
	KindParaphrase = "paraphrase"
	// KindTask queries are task descriptions an agent would be given.
	KindTask = "task"
)

// Kinds lists the query kinds in report order.
var Kinds = []string{KindIdentifier, KindParaphrase, KindTask}

// Query is one golden query: its kind, text and the keys of the memories
// that answer it.
type Query struct {
	Kind     string
	Text     string
	Relevant []string
}

// ParseQueries reads "KIND | TEXT | KEY KEY..." lines ('#' starts a
// comment line). It fails on an unknown kind, an empty field or a repeated
// (kind, text), naming the line.
func ParseQueries(r io.Reader) ([]Query, error) {
	var out []Query
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want \"KIND | TEXT | KEYS\", got %q", n, line)
		}
		q := Query{Kind: strings.TrimSpace(f[0]), Text: strings.TrimSpace(f[1]), Relevant: strings.Fields(f[2])}
		if q.Kind != KindIdentifier && q.Kind != KindParaphrase && q.Kind != KindTask {
			return nil, fmt.Errorf("line %d: unknown kind %q (want %s)", n, q.Kind, strings.Join(Kinds, ", "))
		}
		if q.Text == "" || len(q.Relevant) == 0 {
			return nil, fmt.Errorf("line %d: empty query text or no relevant keys", n)
		}
		if seen[q.Kind+"|"+q.Text] {
			return nil, fmt.Errorf("line %d: query %q repeated", n, q.Text)
		}
		seen[q.Kind+"|"+q.Text] = true
		out = append(out, q)
	}
	return out, sc.Err()
}
