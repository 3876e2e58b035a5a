package importgit

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// importPlan is the walk Run does.
type importPlan struct {
	branch, head, prefix string
	remote               string
	// segments are the runs of consecutive first-parent commits to
	// examine, newest segment first (at most two: the commits newer than
	// the previous run's range and those older than it).
	segments []planSegment
	// mark is the range the previous run covered (zero when none or when
	// it was made with other options); next is the range to record after
	// this run (zero: keep the previous one).
	mark, next importMark
	// incremental: the previous run's range was left out of the walk.
	incremental bool
}

// planSegment is a run of consecutive first-parent commits, newest first:
// git log reads it as head ^base (base "" for a run down to the root).
type planSegment struct {
	head, base string
	commits    []planCommit
}

type planCommit struct {
	hash    string
	parents int
}

// commits returns the planned commits, newest first.
func (p *importPlan) commits() []planCommit {
	var out []planCommit
	for _, s := range p.segments {
		out = append(out, s.commits...)
	}
	return out
}

// importMark is the range of the first-parent chain a run examined: every
// commit from Head down to Low (inclusive; Low "" when the walk reached
// the root), made with the options Options names (importOptionsKey). The
// next run with the same options skips that range: it examines only the
// commits newer than Head and, when its --limit or --since window reaches
// further back than Low, the older ones. Stored per branch
// (index.Store.ImportMark) as JSON; a value of earlier versions is a bare
// commit hash (a walk down to the root, any options).
type importMark struct {
	Head    string `json:"head"`
	Low     string `json:"low,omitempty"`
	Options string `json:"options,omitempty"`
}

// importOptionsKey names the options that change what a commit gives
// (paths, merges, max definitions): a range examined with other options
// is examined again.
func importOptionsKey(o Options) string {
	return fmt.Sprintf("paths=%q merges=%t max_definitions=%d", o.Paths, o.Merges, o.MaxDefinitions)
}

// parseImportMark decodes a stored mark ("" when none).
func parseImportMark(s string) importMark {
	if s == "" {
		return importMark{}
	}
	var m importMark
	if strings.HasPrefix(s, "{") {
		if json.Unmarshal([]byte(s), &m) != nil {
			return importMark{}
		}
		return m
	}
	return importMark{Head: s, Options: "*"}
}

// encode returns the stored form of m.
func (m importMark) encode() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// planImport lists the commits to examine with `git rev-list
// --first-parent --parents`: the newest opts.Limit first-parent commits
// of HEAD (all when 0) after opts.Since, leaving out the range the
// previous run with the same options examined (importMark).
func planImport(ctx context.Context, w *memory.Workspace, opts Options) (*importPlan, error) {
	p := &importPlan{}
	var err error
	if p.head, err = gitOut(ctx, w.Root, "rev-parse", "--verify", "-q", "HEAD^{commit}"); err != nil || p.head == "" {
		return nil, fmt.Errorf("%s is not in a git repository with commits", w.Root)
	}
	if p.branch, _ = gitOut(ctx, w.Root, "rev-parse", "--abbrev-ref", "HEAD"); p.branch == "" {
		p.branch = "HEAD"
	}
	p.prefix, _ = gitOut(ctx, w.Root, "rev-parse", "--show-prefix")
	p.remote, _ = gitOut(ctx, w.Root, "config", "--get", "remote.origin.url")
	var filter []string
	if opts.Since != "" {
		a, err := sinceArg(ctx, w.Root, opts.Since)
		if err != nil {
			return nil, err
		}
		filter = append(filter, a)
	}
	stored, err := w.Store.ImportMark(p.branch)
	if err != nil {
		return nil, err
	}
	key := importOptionsKey(opts)
	if m := parseImportMark(stored); m.Head != "" && (m.Options == key || m.Options == "*") && isAncestor(ctx, w.Root, m.Head, p.head) {
		p.mark = m
	}
	if p.mark.Head == "" {
		seg, err := revList(ctx, w.Root, opts.Limit, filter, p.head, "")
		if err != nil {
			return nil, err
		}
		p.addSegment(seg)
		if len(seg.commits) > 0 {
			p.next = importMark{Head: p.head, Low: lowOf(seg), Options: key}
		}
		return p, nil
	}
	return p, planAroundMark(ctx, w.Root, p, opts.Limit, filter, key)
}

// planAroundMark plans the walk next to the previous run's range: the
// commits newer than its head, then, while the window (limit, since) has
// room, those older than its low end.
func planAroundMark(ctx context.Context, root string, p *importPlan, limit int, filter []string, key string) error {
	m := p.mark
	p.incremental = true
	top, err := revList(ctx, root, limit, filter, p.head, m.Head)
	if err != nil {
		return err
	}
	p.addSegment(top)
	// The previous range is in the window only when the walk of the newer
	// commits reached it (else the window is all newer commits, or none
	// when --since leaves them all out: the previous mark stays).
	if reached := p.head == m.Head || len(top.commits) > 0 && top.base == m.Head; !reached {
		if len(top.commits) > 0 {
			p.next = importMark{Head: p.head, Low: lowOf(top), Options: key}
		}
		return nil
	}
	p.next = importMark{Head: p.head, Low: m.Low, Options: key}
	room := 0 // commits the window has left below the previous range; -1: no bound
	switch {
	case m.Low == "":
		return nil // the previous run reached the root
	case limit == 0:
		room = -1
	default:
		covered, err := gitOut(ctx, root, append(append([]string{"rev-list", "--count", "--first-parent"}, filter...), m.Head, "^"+m.Low+"^")...)
		if err != nil {
			return fmt.Errorf("git rev-list: %w", err)
		}
		n, _ := strconv.Atoi(covered)
		if room = limit - len(top.commits) - n; room <= 0 {
			return nil
		}
	}
	old, err := revList(ctx, root, max(room, 0), filter, m.Low+"^", "")
	if err != nil {
		return err
	}
	p.addSegment(old)
	if len(old.commits) > 0 {
		p.next.Low = lowOf(old)
	}
	return nil
}

// addSegment appends a segment with commits.
func (p *importPlan) addSegment(s planSegment) {
	if len(s.commits) > 0 {
		p.segments = append(p.segments, s)
	}
}

// lowOf returns the oldest commit of a segment, "" when it is a root
// commit (the walk reached the beginning of history).
func lowOf(s planSegment) string {
	if s.base == "" {
		return ""
	}
	return s.commits[len(s.commits)-1].hash
}

// revList lists up to limit (0: all) first-parent commits from head,
// newest first, stopping before stop when given, with the filter
// arguments (--since); base is the first parent of the oldest listed.
func revList(ctx context.Context, dir string, limit int, filter []string, head, stop string) (planSegment, error) {
	args := []string{"rev-list", "--first-parent", "--parents"}
	if limit > 0 {
		args = append(args, "--max-count="+strconv.Itoa(limit))
	}
	args = append(args, filter...)
	args = append(args, head)
	if stop != "" {
		args = append(args, "^"+stop)
	}
	out, err := gitOut(ctx, dir, args...)
	if err != nil {
		return planSegment{}, fmt.Errorf("git rev-list: %w", err)
	}
	s := planSegment{head: head}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			s.commits = append(s.commits, planCommit{hash: f[0], parents: len(f) - 1})
			s.base = ""
			if len(f) > 1 {
				s.base = f[1]
			}
		}
	}
	return s, nil
}

// sinceArg turns --since into a rev-list argument: a date (YYYY-MM-DD or
// RFC 3339) becomes --since=, a revision ^REV.
func sinceArg(ctx context.Context, dir, since string) (string, error) {
	for _, layout := range []string{"2006-01-02", time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, since); err == nil {
			return "--since=" + t.Format(time.RFC3339), nil
		}
	}
	if strings.HasPrefix(since, "-") {
		return "", fmt.Errorf("--since %q is neither a date (YYYY-MM-DD) nor a revision", since)
	}
	rev, err := gitOut(ctx, dir, "rev-parse", "--verify", "-q", since+"^{commit}")
	if err != nil || rev == "" {
		return "", fmt.Errorf("--since %q is neither a date (YYYY-MM-DD) nor a revision", since)
	}
	return "^" + rev, nil
}
