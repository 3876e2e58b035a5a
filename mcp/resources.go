package mcp

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/memfile"
)

// Resource URIs.
const (
	// MemoryURIPrefix + id is the resource of one memory: Markdown with
	// YAML front matter.
	MemoryURIPrefix = "gloss://memory/"
	// FileURIPrefix + a workspace-relative slash path is the resource
	// listing the memories of that file.
	FileURIPrefix = "gloss://file/"
	// MemoryTemplate and FileTemplate are the resource templates (RFC
	// 6570; {+path} keeps the slashes of the path).
	MemoryTemplate = "gloss://memory/{id}"
	FileTemplate   = "gloss://file/{+path}"
)

// MemoryURI returns the resource URI of memory id.
func MemoryURI(id string) string { return MemoryURIPrefix + id }

// FileURI returns the resource URI of the workspace-relative slash path.
func FileURI(path string) string { return FileURIPrefix + path }

// resources keeps the resource list in step with the store: one resource
// per memory, registered by sync, whose fingerprints tell which changed.
type resources struct {
	s    *Server
	mu   sync.Mutex
	seen map[string]string // memory id → fingerprint
	// synced is set after the first sync; last is when the last one
	// ended.
	synced bool
	last   time.Time
	// interested is set once a client listed or subscribed to resources:
	// until then Watch does not poll (clients that only call tools pay
	// nothing).
	interested atomic.Bool
}

// middleware makes resources/list current (a sync before the first page
// unless one ended within the last second) and marks that a client is
// interested in resources.
func (r *resources) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "resources/list":
			r.interested.Store(true)
			r.mu.Lock()
			fresh := r.synced && time.Since(r.last) < time.Second
			r.mu.Unlock()
			// Only the first page: the next pages continue that listing.
			if lr, ok := req.(*sdk.ListResourcesRequest); ok && lr.Params != nil && lr.Params.Cursor != "" {
				fresh = true
			}
			if !fresh {
				r.syncRecovered(ctx) // on failure, list what is registered
			}
		case "resources/subscribe":
			r.interested.Store(true)
			r.syncFirst(ctx)
		case "subscriptions/listen": // protocol 2026-07-28 (SEP-2575), sent as a session starts
			// Interested only when it asks for resource notifications: a
			// client that wants tool or prompt list changes alone is not.
			if lr, ok := req.(*sdk.SubscriptionsListenRequest); !ok || lr.Params == nil || lr.Params.Notifications == nil {
				break
			} else if n := lr.Params.Notifications; n.ResourcesListChanged || len(n.ResourceSubscriptions) > 0 {
				r.interested.Store(true)
				if len(n.ResourceSubscriptions) > 0 {
					r.syncFirst(ctx)
				}
			}
		}
		return next(ctx, method, req)
	}
}

// syncRecovered is Sync for the middleware: an error or a panic below
// (a bug) leaves the resources as registered, and the request is served
// from them.
func (r *resources) syncRecovered(ctx context.Context) {
	defer func() { _ = recover() }()
	_, _ = r.s.Sync(ctx)
}

// syncFirst syncs (syncRecovered) unless a sync was done already: the
// first subscription's baseline, from which later changes are told
// apart.
func (r *resources) syncFirst(ctx context.Context) {
	r.mu.Lock()
	synced := r.synced
	r.mu.Unlock()
	if !synced {
		r.syncRecovered(ctx)
	}
}

func newResources(s *Server) *resources {
	return &resources{s: s, seen: map[string]string{}}
}

// add registers the resource templates.
func (r *resources) add() {
	r.s.srv.AddResourceTemplate(&sdk.ResourceTemplate{
		Name: "memory", Title: "A gloss memory", MIMEType: "text/markdown", URITemplate: MemoryTemplate,
		Description: "One memory as Markdown with YAML front matter (id, type, title, tags, anchors with 1-based lines and status, stale).",
	}, recovered(r.readMemory))
	r.s.srv.AddResourceTemplate(&sdk.ResourceTemplate{
		Name: "file-memories", Title: "Memories of a file", MIMEType: "text/markdown", URITemplate: FileTemplate,
		Description: "The memories anchored to a file (path relative to the workspace root), as a Markdown list with links to gloss://memory/{id}.",
	}, recovered(r.readFile))
}

// recovered returns h with a panic (a bug) turned into an error.
func recovered[Req any, Res any](h func(context.Context, Req) (Res, error)) func(context.Context, Req) (Res, error) {
	return func(ctx context.Context, req Req) (res Res, err error) {
		defer func() {
			if r := recover(); r != nil {
				var zero Res
				res, err = zero, fmt.Errorf("internal error in gloss: %v (please report it)", r)
			}
		}()
		return h(ctx, req)
	}
}

// readMemory serves gloss://memory/{id}.
func (r *resources) readMemory(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, err := url.PathUnescape(strings.TrimPrefix(uri, MemoryURIPrefix))
	if err != nil || id == "" || strings.Contains(id, "/") {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	res, err := r.s.impl.Show(ctx, api.ShowArgs{ID: id})
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: string(FormatMemory(res.View, res.Diff))}}}, nil
}

// readFile serves gloss://file/{+path}.
func (r *resources) readFile(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	path, err := url.PathUnescape(strings.TrimPrefix(uri, FileURIPrefix))
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	loc, err := r.s.location(path, 0, 0)
	if err != nil {
		return nil, err
	}
	res, err := r.s.impl.MemoriesAt(ctx, loc)
	if err != nil {
		return nil, fmt.Errorf("memories of %s: %w", path, toolError(err))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Memories of %s\n\n", path)
	if len(res.Memories) == 0 {
		b.WriteString("No memories are anchored to this file.\n")
	}
	for _, v := range res.Memories {
		b.WriteString(summaryLine(v, path))
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: b.String()}}}, nil
}

// summaryLine is a Markdown list item for v: title linked to its
// resource, type, lines in path, staleness, and the first line of the
// body.
func summaryLine(v memory.View, path string) string {
	var lines []string
	for _, a := range v.Anchors {
		if path == "" || a.Path == path {
			l := fmt.Sprintf("%s:%d-%d", a.Path, a.StartLine, a.EndLine)
			if a.Status != memory.StatusFresh && a.Status != "" {
				l += " (" + a.Status + ")"
			}
			lines = append(lines, l)
		}
	}
	stale := ""
	if v.Stale {
		stale = " **STALE: the code changed since this was written; it may be wrong**"
	}
	s := fmt.Sprintf("- [%s](%s) — %s at %s%s\n", v.Title, MemoryURI(v.ID), v.Type, strings.Join(lines, ", "), stale)
	if body := strings.TrimSpace(v.Body); body != "" && body != v.Title {
		for _, l := range strings.Split(body, "\n") {
			s += "  " + l + "\n"
		}
	}
	return s
}

// frontMatter is the YAML front matter of a memory resource: the fields
// of memfile.Header (the Markdown files in .gloss/memories) with the
// scope, source, staleness and each anchor's status.
type frontMatter struct {
	ID         string        `yaml:"id"`
	Type       string        `yaml:"type"`
	Title      string        `yaml:"title"`
	Tags       []string      `yaml:"tags,omitempty"`
	Scope      string        `yaml:"scope"`
	Source     string        `yaml:"source"`
	Stale      bool          `yaml:"stale"`
	Anchors    []anchorFront `yaml:"anchors,omitempty"`
	Author     string        `yaml:"author,omitempty"`
	CreatedAt  time.Time     `yaml:"created_at"`
	UpdatedAt  time.Time     `yaml:"updated_at"`
	VerifiedAt time.Time     `yaml:"verified_at,omitempty"`
}

type anchorFront struct {
	Path   string `yaml:"path"`
	Symbol string `yaml:"symbol,omitempty"`
	Lines  string `yaml:"lines"`
	Status string `yaml:"status"`
}

// FormatMemory renders a memory view as Markdown with YAML front matter,
// in the shape of memory.FormatMemoryFile plus scope, source, staleness
// and anchor statuses; diff, when not empty, is appended as a fenced
// block.
func FormatMemory(v memory.View, diff string) []byte {
	h := frontMatter{ID: v.ID, Type: v.Type, Title: v.Title, Tags: v.Tags, Scope: v.Scope, Source: v.Source, Stale: v.Stale,
		Author: v.Author, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, VerifiedAt: v.VerifiedAt}
	for _, a := range v.Anchors {
		h.Anchors = append(h.Anchors, anchorFront{Path: a.Path, Symbol: a.Symbol, Lines: fmt.Sprintf("%d-%d", a.StartLine, a.EndLine), Status: a.Status})
	}
	b := bytes.NewBuffer(memfile.Doc(h, v.Body))
	if diff != "" {
		b.WriteString("\n## What changed\n\n```diff\n")
		b.WriteString(strings.TrimRight(diff, "\n"))
		b.WriteString("\n```\n")
	}
	return b.Bytes()
}

// fingerprint changes when anything a reader of v's resource sees
// changes.
func fingerprint(v memory.View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%v|%s|%s|%d|%v", v.UpdatedAt.Format(time.RFC3339Nano), v.VerifiedAt.Format(time.RFC3339Nano), v.Title, v.Stale, v.Type, v.Scope, len(v.Body), v.Tags)
	for _, a := range v.Anchors {
		fmt.Fprintf(&b, "|%s:%d-%d:%s", a.Path, a.StartLine, a.EndLine, a.Status)
	}
	return b.String()
}

// resourceOf returns the listed resource of memory v.
func resourceOf(v memory.View) *sdk.Resource {
	desc := v.Type
	if len(v.Anchors) > 0 {
		a := v.Anchors[0]
		desc += fmt.Sprintf(" at %s:%d-%d", a.Path, a.StartLine, a.EndLine)
	}
	if v.Stale {
		desc += " (stale)"
	}
	return &sdk.Resource{URI: MemoryURI(v.ID), Name: "memory-" + v.ID, Title: v.Title, Description: desc, MIMEType: "text/markdown"}
}

// Sync lists the memories (api List) and brings the resource list in step
// with them: new memories are added and forgotten ones removed (the SDK
// sends notifications/resources/list_changed), and
// notifications/resources/updated goes to the clients subscribed to a
// changed memory's gloss://memory/{id} or to a gloss://file/{+path} of
// its anchors. It returns the URIs it reported updated.
func (s *Server) Sync(ctx context.Context) ([]string, error) {
	r := s.res
	r.mu.Lock()
	defer r.mu.Unlock()
	res, err := s.impl.List(ctx, api.ListArgs{})
	if err != nil {
		return nil, err
	}
	now := make(map[string]string, len(res.Memories))
	updated := map[string]bool{}
	files := func(v memory.View) {
		for _, a := range v.Anchors {
			updated[FileURI(a.Path)] = true
		}
	}
	for _, v := range res.Memories {
		fp := fingerprint(v)
		now[v.ID] = fp
		prev, ok := r.seen[v.ID]
		switch {
		case !ok:
			s.srv.AddResource(resourceOf(v), recovered(r.readMemory))
			if r.synced {
				files(v)
			}
		case prev != fp:
			s.srv.AddResource(resourceOf(v), recovered(r.readMemory)) // title or staleness may have changed
			updated[MemoryURI(v.ID)] = true
			files(v)
		}
	}
	var gone []string
	for id := range r.seen {
		if _, ok := now[id]; !ok {
			gone = append(gone, MemoryURI(id))
			updated[MemoryURI(id)] = true
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveResources(gone...)
	}
	r.seen, r.synced, r.last = now, true, time.Now()
	out := make([]string, 0, len(updated))
	for uri := range updated {
		out = append(out, uri)
		_ = s.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: uri})
	}
	return out, nil
}

// Watch polls Sync every interval (DefaultPoll when 0) until ctx is done,
// so that clients hear of memories changed by any door (editor, CLI,
// another agent). It syncs only while a session is connected that listed
// or subscribed to resources (whose first listing or subscription syncs
// at once), and no sooner than 20 times the last sync's duration after
// the last one (a sync lists the whole store): a client that only calls
// tools costs nothing, where a first sync at start registered every
// memory as a resource (354 MB resident for `gloss mcp` at 100,000
// memories, docs/benchmarks.md, session 21). Errors are passed to warn
// (which may be nil).
func (s *Server) Watch(ctx context.Context, every time.Duration, warn func(error)) {
	if every <= 0 {
		every = DefaultPoll
	}
	report := func(err error) {
		if err != nil && warn != nil && ctx.Err() == nil {
			warn(err)
		}
	}
	poll := func() time.Duration {
		start := time.Now()
		_, err := s.Sync(ctx)
		report(err)
		return time.Since(start)
	}
	var took time.Duration
	for {
		// A sync lists every memory: on a large store, poll less often
		// so that polling costs at most 1/20 of a core.
		wait := max(every, 20*took)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		connected := false
		for range s.srv.Sessions() {
			connected = true
			break
		}
		if connected && s.res.interested.Load() {
			took = poll()
		}
	}
}

// addPrompts registers the briefing prompt.
func (s *Server) addPrompts() {
	s.srv.AddPrompt(&sdk.Prompt{
		Name: "briefing", Title: "Briefing on a file",
		Description: "What gloss knows about a file before you work on it: every memory anchored to it, stale ones flagged.",
		Arguments:   []*sdk.PromptArgument{{Name: "file", Title: "File", Description: "path relative to the workspace root", Required: true}},
	}, recovered(s.briefing))
}

func (s *Server) briefing(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	file := req.Params.Arguments["file"]
	loc, err := s.location(file, 0, 0)
	if err != nil {
		return nil, err
	}
	res, err := s.impl.MemoriesAt(ctx, loc)
	if err != nil {
		return nil, toolError(err)
	}
	rel := s.rel(mustPath(loc.URI))
	var b strings.Builder
	if len(res.Memories) == 0 {
		fmt.Fprintf(&b, "gloss has no memories about %s. If you learn something about it that a future reader should know, store it with the remember tool.\n", rel)
	} else {
		stale := 0
		for _, v := range res.Memories {
			if v.Stale {
				stale++
			}
		}
		fmt.Fprintf(&b, "Before working on %s, read what is known about it. gloss has %d memories anchored to it", rel, len(res.Memories))
		if stale > 0 {
			fmt.Fprintf(&b, " (%d stale: the code changed since they were written, so check them against the code and then verify, update or forget them)", stale)
		}
		b.WriteString(":\n\n")
		for _, v := range res.Memories {
			b.WriteString(summaryLine(v, rel))
		}
	}
	return &sdk.GetPromptResult{
		Description: "Memories of " + rel,
		Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: b.String()}}},
	}, nil
}

// mustPath returns the path of a file URI made by location.
func mustPath(uri string) string {
	p, _ := api.URIToPath(uri)
	return p
}
