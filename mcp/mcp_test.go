package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	glossmcp "github.com/gloss-dev/gloss/mcp"
	"github.com/gloss-dev/gloss/memory"
)

const serviceGo = `package service

// Fetch gets a page with retries.
func Fetch(url string) string {
	return retry(url)
}

func retry(url string) string {
	for i := 0; i < 3; i++ {
		if url != "" {
			return url
		}
	}
	return ""
}

// Server serves pages.
type Server struct{ n int }

// Handle answers one request.
func (s *Server) Handle(url string) string {
	return Fetch(url)
}
`

// fixture is a hermetic repository served by an in-process MCP server
// and a client connected to it over the SDK's in-memory transport.
type fixture struct {
	t       *testing.T
	root    string
	srv     *glossmcp.Server
	cs      *sdk.ClientSession
	mu      sync.Mutex
	updated []string // URIs of resources/updated notifications
	listed  int      // resources/list_changed notifications
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	eng, root := fixtureEngine(t)
	return connect(t, eng, root)
}

// fixtureEngine opens the fixture repository (service.go, go.mod,
// README.md, one commit) as a single-workspace engine that indexes first,
// closed when t ends; root is the workspace root.
func fixtureEngine(t *testing.T) (eng *api.Engine, root string) {
	t.Helper()
	home := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/service\n", "service.go": serviceGo, "README.md": "# service\n"})
	testutil.Commit(t, repo, "init")
	w, err := memory.Open(repo, memory.Options{Home: home, Author: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &api.Engine{Host: api.Single{W: w}, IndexFirst: true}, w.Root
}

// connect serves impl for root and connects a client to it.
func connect(t testing.TB, impl api.Interface, root string) *fixture {
	s, err := glossmcp.New(impl, glossmcp.Options{Root: root, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{root: root, srv: s}
	if tt, ok := t.(*testing.T); ok {
		f.t = tt
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			f.mu.Lock()
			f.updated = append(f.updated, r.Params.URI)
			f.mu.Unlock()
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			f.mu.Lock()
			f.listed++
			f.mu.Unlock()
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	f.cs = cs
	return f
}

// call calls tool name with args, fails the test on a protocol error, and
// decodes the structured result into out (when not nil and not an error
// result).
func (f *fixture) call(name string, args any, out any) *sdk.CallToolResult {
	f.t.Helper()
	res, err := f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			f.t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			f.t.Fatalf("%s: decoding %s: %v", name, data, err)
		}
	}
	return res
}

// mustOK calls the tool and fails on a tool error.
func (f *fixture) mustOK(name string, args any, out any) {
	f.t.Helper()
	if res := f.call(name, args, out); res.IsError {
		f.t.Fatalf("%s(%v): tool error: %s", name, args, text(res))
	}
}

// mustFail calls the tool and returns the text of its tool error.
func (f *fixture) mustFail(name string, args any) string {
	f.t.Helper()
	res := f.call(name, args, nil)
	if !res.IsError {
		f.t.Fatalf("%s(%v): want a tool error, got %s", name, args, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// toolNames are the tools the server lists, sorted.
var toolNames = []string{"check", "context", "flag", "forget", "impact", "import_git", "memories_at", "memories_for_symbol", "relate", "remember", "review", "search", "show", "suggest_anchors", "update", "verify", "why"}

func TestListTools(t *testing.T) {
	f := newFixture(t)
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s: description, input or output schema missing", tool.Name)
		}
	}
	want := toolNames
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	// Property descriptions come from the jsonschema tags.
	for _, tool := range res.Tools {
		if tool.Name != "forget" {
			continue
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"confirm"`) || !strings.Contains(string(schema), "must be true") {
			t.Errorf("forget input schema lacks the confirm description: %s", schema)
		}
	}
}

func TestToolsEndToEnd(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first, last := testutil.DefLines(t, serviceGo, "func retry")

	// remember by lines and by symbol.
	var rem glossmcp.MemoryOutput
	f.mustOK("remember", map[string]any{"text": "retry gives up after three attempts; callers must not loop again", "path": "service.go",
		"start_line": first, "end_line": last, "type": "gotcha", "tags": []string{"retry"}}, &rem)
	m := rem.Memory
	if m.ID == "" || m.Source != glossmcp.Source || m.Type != "gotcha" || len(m.Anchors) != 1 || m.Anchors[0].Path != "service.go" || m.Anchors[0].StartLine != first {
		t.Fatalf("remember = %+v", m)
	}
	var bySym glossmcp.MemoryOutput
	f.mustOK("remember", map[string]any{"text": "Handle is the only entry point for requests", "symbol": "Server.Handle", "type": "decision"}, &bySym)

	// memories_at: the lines, the whole file, and lines without memories.
	var at glossmcp.MemoriesOutput
	f.mustOK("memories_at", map[string]any{"path": "service.go", "start_line": first + 1}, &at)
	if at.Count != 1 || at.Memories[0].ID != m.ID {
		t.Fatalf("memories_at line %d = %+v", first+1, at)
	}
	f.mustOK("memories_at", map[string]any{"path": "./service.go"}, &at)
	if at.Count != 2 {
		t.Fatalf("memories_at whole file: %d memories, want 2", at.Count)
	}
	f.mustOK("memories_at", map[string]any{"path": "README.md", "start_line": 1}, &at)
	if at.Count != 0 || at.Memories == nil {
		t.Fatalf("memories_at README = %+v, want an empty list", at)
	}

	// memories_for_symbol with the symbol of the anchor.
	sym := bySym.Memory.Anchors[0].Symbol
	f.mustOK("memories_for_symbol", map[string]any{"symbol": sym}, &at)
	if at.Count != 1 || at.Memories[0].ID != bySym.Memory.ID {
		t.Fatalf("memories_for_symbol = %+v", at)
	}

	// search, with and without a type filter.
	var sr glossmcp.SearchOutput
	f.mustOK("search", map[string]any{"query": "attempts"}, &sr)
	// The note that says "attempts" ranks first; the other may follow on
	// the vector list alone (the built-in embedder's general-domain prior
	// gives most pairs of texts a small positive cosine), always lower.
	if sr.Count < 1 || sr.Count > 2 || sr.Hits[0].ID != m.ID || sr.Hits[0].Score <= 0 || (sr.Count == 2 && sr.Hits[1].Score >= sr.Hits[0].Score) {
		t.Fatalf("search = %+v", sr)
	}
	f.mustOK("search", map[string]any{"query": "attempts", "type": "decision"}, &sr)
	for _, h := range sr.Hits { // the gotcha that says "attempts" is filtered out
		if h.View == nil || h.Type != "decision" || h.ID == m.ID {
			t.Fatalf("search type=decision = %+v", sr)
		}
	}

	// impact of retry: Fetch calls it; Handle calls Fetch at depth 2.
	var im api.ImpactResult
	f.mustOK("impact", map[string]any{"symbol": "retry", "depth": 2}, &im)
	if len(im.Definitions) < 2 || len(im.Memories) != 2 {
		t.Fatalf("impact = %+v", im)
	}

	// context: the file's memories within a budget.
	var cx glossmcp.ContextOutput
	f.mustOK("context", map[string]any{"files": []string{"service.go"}, "task": "change the retry count"}, &cx)
	if len(cx.Memories) != 2 || cx.Truncated || !strings.Contains(cx.Markdown, "[gloss:"+cx.Memories[0].Memory.ID+"]") {
		t.Fatalf("context = %+v", cx)
	}
	f.mustOK("context", map[string]any{"task": "retry attempts", "budget": 10}, &cx)
	if len(cx.Memories) != 0 || !cx.Truncated {
		t.Fatalf("context with budget 10 = %+v", cx)
	}

	// Resources: listing syncs first; the memory as Markdown with front
	// matter, the file list.
	rl, err := f.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rl.Resources) != 2 {
		t.Fatalf("resources = %d, want 2", len(rl.Resources))
	}
	rr, err := f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: glossmcp.MemoryURI(m.ID)})
	if err != nil {
		t.Fatal(err)
	}
	md := rr.Contents[0].Text
	for _, want := range []string{"---\nid: " + m.ID, "type: gotcha", "source: agent", "stale: false", "path: service.go", "status: fresh", "\n---\n\nretry gives up"} {
		if !strings.Contains(md, want) {
			t.Errorf("memory resource lacks %q:\n%s", want, md)
		}
	}
	rr, err = f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: glossmcp.FileURI("service.go")})
	if err != nil {
		t.Fatal(err)
	}
	if txt := rr.Contents[0].Text; !strings.Contains(txt, glossmcp.MemoryURI(m.ID)) || !strings.Contains(txt, glossmcp.MemoryURI(bySym.Memory.ID)) {
		t.Errorf("file resource:\n%s", txt)
	}
	if _, err := f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: glossmcp.MemoryURI("01NOSUCHMEMORY")}); err == nil {
		t.Error("reading an unknown memory: no error")
	}
	tl, err := f.cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 2 {
		t.Fatalf("resource templates = %v, %v", tl, err)
	}

	// The briefing prompt.
	pr, err := f.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "briefing", Arguments: map[string]string{"file": "service.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if brief := pr.Messages[0].Content.(*sdk.TextContent).Text; !strings.Contains(brief, "2 memories") || !strings.Contains(brief, "retry gives up") {
		t.Errorf("briefing:\n%s", brief)
	}

	// Subscribe to the memory, change the code, commit: check reports it
	// stale with a diff, and the next sync notifies the subscriber.
	if err := f.cs.Subscribe(ctx, &sdk.SubscribeParams{URI: glossmcp.MemoryURI(m.ID)}); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(serviceGo, "i < 3", "i < 5", 1)
	testutil.WriteFiles(t, f.root, map[string]string{"service.go": edited})
	testutil.Commit(t, f.root, "five attempts")
	var ck glossmcp.CheckOutput
	f.mustOK("check", map[string]any{}, &ck)
	if ck.StaleCount != 1 || len(ck.Stale) != 1 || ck.Stale[0].ID != m.ID || !strings.Contains(ck.Stale[0].Diff, "i < 5") || !slices.Contains(ck.ChangedFiles, "service.go") {
		t.Fatalf("check = %+v", ck)
	}
	if _, err := f.srv.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return slices.Contains(f.updated, glossmcp.MemoryURI(m.ID))
	}, "resources/updated for the stale memory")
	var shown glossmcp.MemoryOutput
	f.mustOK("show", map[string]any{"id": m.ID}, &shown)
	if !shown.Memory.Stale || !strings.Contains(shown.Diff, "i < 5") {
		t.Fatalf("show = %+v", shown)
	}

	// verify makes it fresh; update rewrites it.
	var ver glossmcp.MemoryOutput
	f.mustOK("verify", map[string]any{"id": m.ID}, &ver)
	if ver.Memory.Stale {
		t.Fatalf("verify left it stale: %+v", ver.Memory)
	}
	var up glossmcp.MemoryOutput
	f.mustOK("update", map[string]any{"id": m.ID, "text": "retry gives up after five attempts"}, &up)
	if up.Memory.Body != "retry gives up after five attempts" {
		t.Fatalf("update = %+v", up.Memory)
	}

	// forget needs confirm.
	if msg := f.mustFail("forget", map[string]any{"id": m.ID}); !strings.Contains(msg, "confirm") {
		t.Errorf("forget without confirm: %s", msg)
	}
	var fg glossmcp.ForgetOutput
	f.mustOK("forget", map[string]any{"id": m.ID, "confirm": true}, &fg)
	if fg.Forgotten != m.ID {
		t.Fatalf("forget = %+v", fg)
	}
	f.mustOK("search", map[string]any{"query": "attempts"}, &sr)
	for _, h := range sr.Hits { // the other memory may come on the vector list alone
		if h.View == nil || h.ID == m.ID {
			t.Fatalf("search after forget = %+v", sr)
		}
	}
	f.mu.Lock()
	f.listed = 0
	f.mu.Unlock()
	if _, err := f.srv.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.listed > 0 }, "resources/list_changed after forget")
}

// TestToolErrors: bad input gives tool errors with a clear message, never
// a protocol error or a crash.
func TestToolErrors(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(filepath.Dir(f.root), "elsewhere.go")
	if err := os.WriteFile(outside, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.root, "link.go")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memories_at", map[string]any{"path": "../elsewhere.go"}, "outside the workspace"},
		{"memories_at", map[string]any{"path": "sub/../../elsewhere.go"}, "outside the workspace"},
		{"memories_at", map[string]any{"path": outside}, "outside the workspace"},
		{"memories_at", map[string]any{"path": "link.go"}, "outside the workspace"},
		{"remember", map[string]any{"text": "x", "path": "../elsewhere.go", "start_line": 1}, "outside the workspace"},
		{"memories_at", map[string]any{"path": "nosuch.go"}, "no file nosuch.go"},
		{"memories_at", map[string]any{"path": "service.go", "start_line": 500}, "lines 500-500 are out of bounds"},
		{"remember", map[string]any{"text": "x", "path": "service.go", "start_line": 20, "end_line": 30}, "lines 20-30 are out of bounds: service.go has 24 lines"},
		{"memories_at", map[string]any{"path": "service.go", "start_line": 5, "end_line": 2}, "before start_line"},
		{"remember", map[string]any{"text": "x", "path": "service.go"}, "start_line"},
		{"remember", map[string]any{"text": "", "path": "service.go", "start_line": 1}, "text"},
		{"remember", map[string]any{"text": "x", "symbol": "NoSuchThing"}, "NoSuchThing"},
		{"remember", map[string]any{"text": "x", "path": "service.go", "start_line": 1, "type": "bogus"}, "bogus"},
		{"search", map[string]any{"query": " "}, "query"},
		{"show", map[string]any{"id": "01NOSUCH"}, "no memory"},
		{"verify", map[string]any{"id": ""}, "id"},
		{"update", map[string]any{"id": "01NOSUCH"}, "nothing to update"},
		{"forget", map[string]any{"id": "01NOSUCH", "confirm": true}, "no memory"},
		{"impact", map[string]any{"symbol": "retry", "depth": 9}, "depth"},
		{"context", map[string]any{}, "files"},
		{"memories_at", map[string]any{}, "path"}, // schema validation: path is required
	} {
		msg := f.mustFail(c.tool, c.args)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s(%v): error %q does not mention %q", c.tool, c.args, msg, c.want)
		}
		if strings.Contains(msg, "gloss.") {
			t.Errorf("%s(%v): error %q names the wire command", c.tool, c.args, msg)
		}
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatch: the poller notices a memory remembered through another door
// (the api directly, as the editor or the CLI would) and notifies the
// client subscribed to its file.
func TestWatch(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.srv.Watch(ctx, 20*time.Millisecond, func(err error) { t.Errorf("watch: %v", err) })
	if err := f.cs.Subscribe(ctx, &sdk.SubscribeParams{URI: glossmcp.FileURI("service.go")}); err != nil {
		t.Fatal(err)
	}
	first, last := testutil.DefLines(t, serviceGo, "func Fetch")
	var rem glossmcp.MemoryOutput
	f.mustOK("remember", map[string]any{"text": "Fetch is the public entry point", "path": "service.go", "start_line": first, "end_line": last}, &rem)
	waitFor(t, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.listed > 0 && slices.Contains(f.updated, glossmcp.FileURI("service.go"))
	}, "list_changed and resources/updated for gloss://file/service.go")
	rl, err := f.cs.ListResources(ctx, nil)
	if err != nil || len(rl.Resources) != 1 || rl.Resources[0].URI != glossmcp.MemoryURI(rem.Memory.ID) || rl.Resources[0].Title != rem.Memory.Title {
		t.Fatalf("resources = %+v, %v", rl, err)
	}
}

// broken is an api.Interface whose every method panics (a nil embedded
// interface): a bug below the MCP layer.
type broken struct{ api.Interface }

// TestPanicIsToolError: a panic in the api becomes a tool error (or a
// resource/prompt error), and the server keeps serving.
func TestPanicIsToolError(t *testing.T) {
	testutil.Hermetic(t)
	f := connect(t, broken{}, t.TempDir())
	f.t = t
	for i := 0; i < 2; i++ {
		if msg := f.mustFail("search", map[string]any{"query": "x"}); !strings.Contains(msg, "internal error") {
			t.Errorf("search: %s", msg)
		}
	}
	ctx := context.Background()
	if _, err := f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: glossmcp.FileURI("a.go")}); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("file resource: %v", err)
	}
	if _, err := f.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "briefing", Arguments: map[string]string{"file": "a.go"}}); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("briefing: %v", err)
	}
}

// countingList is an api.Interface that counts its List calls.
type countingList struct {
	api.Interface
	lists atomic.Int64
}

func (c *countingList) List(ctx context.Context, a api.ListArgs) (api.ListResult, error) {
	c.lists.Add(1)
	return c.Interface.List(ctx, a)
}

// TestWatchIdleForToolsOnly: a client that only calls tools (no resource
// handlers: its subscriptions/listen, if any, asks for no resource
// notifications) costs no listing: Watch syncs once a client subscribed
// to or listed resources (a sync at start registered every memory, 354 MB
// at 100,000); after a subscription Watch syncs and polls.
func TestWatchIdleForToolsOnly(t *testing.T) {
	eng, root := fixtureEngine(t)
	impl := &countingList{Interface: eng}
	s, err := glossmcp.New(impl, glossmcp.Options{Root: root, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "tools-only", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	go s.Watch(ctx, 10*time.Millisecond, func(err error) { t.Errorf("watch: %v", err) })
	first, last := testutil.DefLines(t, serviceGo, "func Fetch")
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "remember", Arguments: map[string]any{"text": "Fetch is the public entry point", "path": "service.go", "start_line": first, "end_line": last}})
	if err != nil || res.IsError {
		t.Fatalf("remember: %v %v", res, err)
	}
	time.Sleep(200 * time.Millisecond)
	if n := impl.lists.Load(); n != 0 {
		t.Fatalf("%d listings for a client that only calls tools, want 0", n)
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: glossmcp.FileURI("service.go")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return impl.lists.Load() > 2 }, "a sync and polls after the subscription")
}
