package memory_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/scip"
)

// TestScenarios tests anchoring and re-resolution from text files (see
// testdata/scenarios/README.md). It runs every file of testdata/scenarios
// (datadriven.Walk), each in a fresh hermetic git repository
// (testutil.Hermetic, InitRepo) with its own gloss data home. A file is a
// sequence of directives in the github.com/cockroachdb/datadriven format:
//
//	<command> [key=value ...]
//	<input>
//	----
//	<expected output>
//
// Lines starting with # between directives are comments. The input is
// trimmed of leading and trailing white space by datadriven, so file
// contents written with `write` start at their first non-blank character
// and end with exactly one newline.
//
// Commands (paths are relative to the repository root, lines 1-based):
//
//	write path=P            input is the new content of P (created or
//	                        overwritten, parent directories made).
//	edit path=P             input is OLD, a line "~~~", then NEW: the one
//	                        occurrence of OLD in P is replaced by NEW. Both
//	                        are trimmed of surrounding white space, so the
//	                        indentation before OLD's first line is kept;
//	                        an empty NEW deletes OLD.
//	rm path=P               removes P from the work tree.
//	mv from=P to=Q          renames a work-tree file (not git mv).
//	git                     each input line is one git command line (words
//	                        split on blanks, "double" or 'single' quotes
//	                        group), run in the repository with the
//	                        hermetic environment; output is discarded, a
//	                        failure fails the test.
//	remember name=N at=P:L[-M] [text=T]
//	remember name=N symbol=S [text=T]
//	                        indexes, then creates a memory, known in the
//	                        file as N. Output: "N: symbol <kind> <name>
//	                        P:L-M" or "N: span P:L-M in <name>", or
//	                        "error: ..." when the engine refuses.
//	check [resolved]        Workspace.Check; one line per anchor of every
//	                        memory in name order, "N: <status> P:L-M", a
//	                        symbol anchor followed by the current name of
//	                        its definition, then "stale: K". With
//	                        resolved, also "resolved: R" (anchors
//	                        re-resolved by this check).
//	verify name=N           Workspace.Verify; prints the anchors as check
//	                        does, or "error: ...".
//	forget name=N           Workspace.Forget; prints "forgot N".
//	at path=P line=L        Workspace.At; the names of the memories with an
//	                        anchor covering line L, or "none".
//
// In all output, memory IDs are replaced by their names and the
// repository's directory by $REPO.
//
// Regenerate expected outputs after an intended engine change with
//
//	go test ./memory -run TestScenarios -rewrite
//
// and review the diff of testdata/scenarios.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata", "scenarios"), func(t *testing.T, path string) {
		if !strings.HasSuffix(path, ".txt") {
			t.Skip("not a scenario file")
		}
		s := newScenario(t)
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			return s.redact(s.run(t, td))
		})
	})
}

// scenario is the state of one scenario file: its repository, workspace
// and the memories by their scenario-local names.
type scenario struct {
	repo string
	w    *memory.Workspace
	ids  map[string]string // name → memory ID
}

func newScenario(t *testing.T) *scenario {
	gh := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w, err := memory.Open(repo, memory.Options{Home: gh, Author: "scenario", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &scenario{repo: repo, w: w, ids: map[string]string{}}
}

func (s *scenario) run(t *testing.T, td *datadriven.TestData) string {
	ctx := context.Background()
	switch td.Cmd {
	case "write":
		s.write(t, arg(t, td, "path"), td.Input+"\n")
		return ""
	case "edit":
		p := arg(t, td, "path")
		old, repl, ok := strings.Cut(td.Input+"\n", "\n~~~\n")
		if !ok {
			td.Fatalf(t, "edit: input needs OLD, a line ~~~, then NEW")
		}
		old, repl = strings.TrimSpace(old), strings.TrimSpace(repl)
		src := s.read(t, p)
		if n := strings.Count(src, old); n != 1 {
			td.Fatalf(t, "edit: %q occurs %d times in %s, want once", old, n, p)
		}
		s.write(t, p, strings.Replace(src, old, repl, 1))
		return ""
	case "rm":
		if err := os.Remove(s.abs(arg(t, td, "path"))); err != nil {
			td.Fatalf(t, "%v", err)
		}
		return ""
	case "mv":
		to := s.abs(arg(t, td, "to"))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			td.Fatalf(t, "%v", err)
		}
		if err := os.Rename(s.abs(arg(t, td, "from")), to); err != nil {
			td.Fatalf(t, "%v", err)
		}
		return ""
	case "git":
		for _, line := range strings.Split(td.Input, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				testutil.Git(t, s.repo, splitWords(t, td, line)...)
			}
		}
		return ""
	case "remember":
		return s.remember(ctx, t, td)
	case "check":
		res, err := s.w.Check(ctx)
		if err != nil {
			return "error: " + err.Error()
		}
		byID := map[string]*memory.Memory{}
		for _, m := range res.Memories {
			byID[m.ID] = m
		}
		var b strings.Builder
		stale := 0
		for _, name := range s.names() {
			m := byID[s.ids[name]]
			if m == nil {
				fmt.Fprintf(&b, "%s: lost\n", name)
				continue
			}
			b.WriteString(describe(name, m))
		}
		for _, m := range res.Memories {
			if m.Stale() {
				stale++
			}
		}
		fmt.Fprintf(&b, "stale: %d\n", stale)
		if td.HasArg("resolved") {
			fmt.Fprintf(&b, "resolved: %d\n", res.Resolved)
		}
		return b.String()
	case "verify":
		name := arg(t, td, "name")
		m, err := s.w.Verify(ctx, s.id(t, td, name))
		if err != nil {
			return "error: " + err.Error()
		}
		return describe(name, m)
	case "forget":
		name := arg(t, td, "name")
		if _, err := s.w.Forget(s.id(t, td, name)); err != nil {
			return "error: " + err.Error()
		}
		delete(s.ids, name)
		return "forgot " + name
	case "at":
		var line int
		td.ScanArgs(t, "line", &line)
		ms, err := s.w.At(s.abs(arg(t, td, "path")), line, line)
		if err != nil {
			return "error: " + err.Error()
		}
		names := map[string]string{}
		for n, id := range s.ids {
			names[id] = n
		}
		var out []string
		for _, m := range ms {
			n, ok := names[m.ID]
			if !ok {
				n = "?" + m.ID
			}
			out = append(out, n)
		}
		if len(out) == 0 {
			return "none"
		}
		sort.Strings(out)
		return strings.Join(out, "\n")
	}
	td.Fatalf(t, "unknown command %q", td.Cmd)
	return ""
}

func (s *scenario) remember(ctx context.Context, t *testing.T, td *datadriven.TestData) string {
	name := arg(t, td, "name")
	if _, dup := s.ids[name]; dup {
		td.Fatalf(t, "memory name %s is already used", name)
	}
	req := memory.RememberRequest{Text: "memory " + name}
	if td.HasArg("text") {
		req.Text = arg(t, td, "text")
	}
	switch {
	case td.HasArg("at"):
		at := arg(t, td, "at")
		p, lines, ok := strings.Cut(at, ":")
		if !ok {
			td.Fatalf(t, "at=%s: want PATH:LINE[-LINE]", at)
		}
		first, last, _ := strings.Cut(lines, "-")
		var err error
		if req.StartLine, err = strconv.Atoi(first); err != nil {
			td.Fatalf(t, "at=%s: %v", at, err)
		}
		if last != "" {
			if req.EndLine, err = strconv.Atoi(last); err != nil {
				td.Fatalf(t, "at=%s: %v", at, err)
			}
		}
		req.Path = s.abs(p)
	case td.HasArg("symbol"):
		req.Symbol = arg(t, td, "symbol")
	}
	if _, err := s.w.Index(ctx); err != nil {
		td.Fatalf(t, "index: %v", err)
	}
	m, err := s.w.Remember(ctx, req)
	if err != nil {
		return "error: " + err.Error()
	}
	s.ids[name] = m.ID
	var b strings.Builder
	for i, a := range m.Anchors {
		label := name
		if len(m.Anchors) > 1 {
			label = fmt.Sprintf("%s[%d]", name, i+1)
		}
		if a.Kind == memory.KindSymbol {
			fmt.Fprintf(&b, "%s: symbol %s %s %s\n", label, a.DefKind, symbolName(a.Symbol), place(a))
		} else {
			fmt.Fprintf(&b, "%s: span %s in %s\n", label, place(a), symbolName(a.Symbol))
		}
	}
	return b.String()
}

// describe prints a memory's anchors as the check command does.
func describe(name string, m *memory.Memory) string {
	var b strings.Builder
	for i, a := range m.Anchors {
		label := name
		if len(m.Anchors) > 1 {
			label = fmt.Sprintf("%s[%d]", name, i+1)
		}
		fmt.Fprintf(&b, "%s: %s %s", label, a.Status, place(a))
		if a.Kind == memory.KindSymbol {
			fmt.Fprintf(&b, " %s", symbolName(a.Symbol))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// place is "path:first-last" with 1-based lines.
func place(a memory.Anchor) string {
	return fmt.Sprintf("%s:%d-%d", a.Path, a.Range.StartLine+1, a.Range.LastLine()+1)
}

// symbolName is a SCIP symbol without its package part ("R#Report()."),
// "-" for none.
func symbolName(sym string) string {
	if sym == "" {
		return "-"
	}
	d := scip.DescriptorPath(sym)
	if d == "" {
		return sym
	}
	// Drop the leading namespace descriptors ("`example.com/x`/", "app/").
	for {
		var ns string
		if strings.HasPrefix(d, "`") {
			if j := strings.Index(d[1:], "`/"); j >= 0 {
				ns = d[:j+3]
			}
		} else if i := strings.Index(d, "/"); i >= 0 && !strings.ContainsAny(d[:i], "#.(`") {
			ns = d[:i+1]
		}
		if ns == "" || ns == d {
			break
		}
		d = d[len(ns):]
	}
	return d
}

// redact makes output independent of the run: memory IDs become their
// scenario names and the repository's directory becomes $REPO.
func (s *scenario) redact(out string) string {
	for name, id := range s.ids {
		out = strings.ReplaceAll(out, id, name)
	}
	return strings.ReplaceAll(out, s.repo, "$REPO")
}

func (s *scenario) names() []string {
	var out []string
	for n := range s.ids {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (s *scenario) id(t *testing.T, td *datadriven.TestData, name string) string {
	id, ok := s.ids[name]
	if !ok {
		td.Fatalf(t, "no memory named %s", name)
	}
	return id
}

func (s *scenario) abs(p string) string {
	return filepath.Join(s.repo, filepath.FromSlash(p))
}

func (s *scenario) read(t *testing.T, p string) string {
	b, err := os.ReadFile(s.abs(p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (s *scenario) write(t *testing.T, p, content string) {
	testutil.WriteFiles(t, s.repo, map[string]string{p: content})
}

// arg returns the single value of a required argument.
func arg(t *testing.T, td *datadriven.TestData, key string) string {
	a, ok := td.Arg(key)
	if !ok {
		td.Fatalf(t, "%s: missing argument %s", td.Cmd, key)
	}
	return a.SingleVal(t)
}

// splitWords splits a command line on blanks; "double" or 'single' quotes
// group words (no escapes).
func splitWords(t *testing.T, td *datadriven.TestData, line string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		td.Fatalf(t, "unterminated quote in %q", line)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
