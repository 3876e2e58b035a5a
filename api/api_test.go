package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
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

// newEngine opens an indexed fixture repository as a single-workspace
// engine.
func newEngine(t *testing.T) (*api.Engine, string) {
	t.Helper()
	home := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/service\n", "service.go": serviceGo})
	testutil.Commit(t, repo, "init")
	w, err := memory.Open(repo, memory.Options{Home: home, Author: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	e := &api.Engine{Host: api.Single{W: w}, IndexFirst: true}
	if _, err := e.Index(context.Background(), api.NoArgs{}); err != nil {
		t.Fatal(err)
	}
	return e, w.Root
}

// loopback is an api.Caller that encodes the argument to JSON and
// dispatches it to an Interface, as the daemon does over its socket.
type loopback struct{ impl api.Interface }

func (l loopback) Execute(ctx context.Context, command string, arg, result any) error {
	raw, err := json.Marshal(arg)
	if err != nil {
		return err
	}
	res, err := api.Dispatch(ctx, l.impl, command, raw)
	if err != nil {
		return err
	}
	out, err := json.Marshal(res)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, result)
}

func TestClientRoundTrip(t *testing.T) {
	e, root := newEngine(t)
	ctx := context.Background()
	c := api.Client{Caller: loopback{e}}
	uri := api.PathToURI(filepath.Join(root, "service.go"))

	m, err := c.Remember(ctx, api.RememberArgs{Location: api.Location{URI: uri, Range: api.LinesRange(8, 15)}, Text: "retry caps at 3", Type: "gotcha"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Anchors[0].Kind != memory.KindSymbol || m.Anchors[0].StartLine != 8 || m.Anchors[0].EndLine != 15 {
		t.Fatalf("remember: anchor %+v, want a symbol anchor on lines 8-15", m.Anchors[0])
	}
	at, err := c.MemoriesAt(ctx, api.Location{URI: uri, Range: api.LinesRange(10, 10)})
	if err != nil || len(at.Memories) != 1 || at.Memories[0].ID != m.ID {
		t.Fatalf("memoriesAt = %+v, %v", at, err)
	}
	direct, _ := e.MemoriesAt(ctx, api.Location{URI: uri, Range: api.LinesRange(10, 10)})
	a, _ := json.Marshal(at)
	b, _ := json.Marshal(direct)
	if string(a) != string(b) {
		t.Errorf("client and engine differ:\n%s\n%s", a, b)
	}
	sym, err := c.MemoriesForSymbol(ctx, api.SymbolArgs{Symbol: m.Anchors[0].Symbol})
	if err != nil || len(sym.Memories) != 1 {
		t.Fatalf("memoriesForSymbol = %+v, %v", sym, err)
	}
	sr, err := c.Search(ctx, api.SearchArgs{Query: "retry"})
	if err != nil || len(sr.Memories) != 1 || len(sr.Scores) != 1 {
		t.Fatalf("search = %+v, %v", sr, err)
	}
	text := "retries are capped at 3"
	if u, err := c.Update(ctx, api.UpdateArgs{ID: m.ID, Text: &text}); err != nil || u.Body != text {
		t.Fatalf("update = %+v, %v", u, err)
	}
	if _, err := c.Verify(ctx, api.IDArgs{ID: m.ID}); err != nil {
		t.Fatal(err)
	}
	if show, err := c.Show(ctx, api.ShowArgs{ID: m.ID, Diff: true}); err != nil || show.ID != m.ID {
		t.Fatalf("show = %+v, %v", show, err)
	}
	if ck, err := c.Check(ctx, api.NoArgs{}); err != nil || len(ck.Memories) != 1 || ck.Stale != 0 {
		t.Fatalf("check = %+v, %v", ck, err)
	}
	if st, err := c.Status(ctx, api.NoArgs{}); err != nil || st.Memories != 1 || st.Symbols == 0 {
		t.Fatalf("status = %+v, %v", st, err)
	}
	batch, err := c.RememberBatch(ctx, api.RememberBatchArgs{Items: []api.RememberArgs{
		{Symbol: "Fetch", Text: "Fetch is the only entry point"},
		{Location: api.Location{URI: uri, Range: api.LinesRange(99, 99)}, Text: "out of range"},
	}})
	if err != nil || batch.Items[0].Memory == nil || batch.Items[1].Error == "" {
		t.Fatalf("rememberBatch = %+v, %v", batch, err)
	}
	if f, err := c.Forget(ctx, api.IDArgs{ID: batch.Items[0].Memory.ID}); err != nil || f.Forgotten != batch.Items[0].Memory.ID {
		t.Fatalf("forget = %+v, %v", f, err)
	}
	if l, err := c.List(ctx, api.ListArgs{}); err != nil || len(l.Memories) != 1 {
		t.Fatalf("list = %+v, %v", l, err)
	}
	if ix, err := c.Index(ctx, api.NoArgs{}); err != nil || len(ix.Workspaces) != 1 {
		t.Fatalf("index = %+v, %v", ix, err)
	}
}

func TestImpact(t *testing.T) {
	e, root := newEngine(t)
	ctx := context.Background()
	uri := api.PathToURI(filepath.Join(root, "service.go"))
	// A memory on Handle, which calls Fetch, which calls retry.
	if _, err := e.Remember(ctx, api.RememberArgs{Location: api.Location{URI: uri, Range: api.LinesRange(21, 23)}, Text: "Handle must stay cheap"}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Impact(ctx, api.ImpactArgs{Symbol: "retry", Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Definitions {
		got = append(got, d.Name+"/"+d.Relation+"/"+string(rune('0'+d.Depth)))
	}
	if strings.Join(got, " ") != "Fetch/calls/1 Handle/calls/2" {
		t.Errorf("impact of retry = %v, want Fetch (depth 1) and Handle (depth 2)", got)
	}
	if len(res.Memories) != 1 || res.Memories[0].Title != "Handle must stay cheap" {
		t.Errorf("impact memories = %+v", res.Memories)
	}
	res, err = e.Impact(ctx, api.ImpactArgs{Symbol: "Handle"})
	if err != nil || len(res.Definitions) != 1 || res.Definitions[0].Name != "Server" || res.Definitions[0].Relation != "contains" {
		t.Errorf("impact of Handle = %+v, %v; want its container Server", res.Definitions, err)
	}
	if _, err := e.Impact(ctx, api.ImpactArgs{Symbol: "Nope"}); err == nil {
		t.Error("impact of an unknown symbol: want an error")
	}
}

func TestDispatchErrors(t *testing.T) {
	e, _ := newEngine(t)
	ctx := context.Background()
	for _, tc := range []struct {
		cmd, arg, want string
	}{
		{"gloss.nope", `{}`, "unknown command"},
		{"gloss.remember", ``, "needs one argument object"},
		{"gloss.remember", `[1]`, "must be a JSON object"},
		{"gloss.remember", `{"text": 3}`, "bad argument"},
		{"gloss.remember", `{"text":"x","uri":"file:///etc/passwd","range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}}}`, "outside the workspace"},
		{"gloss.remember", `{"text":"x","uri":"https://example.com/a.go"}`, "only file:// URIs"},
		{"gloss.search", `{"query":" "}`, "empty"},
		{"gloss.search", `{"query":"x","limit":-1}`, "negative"},
		{"gloss.show", `{"id":"01NOPE01NOPE"}`, "no memory"},
		{"gloss.impact", `{}`, "missing"},
	} {
		_, err := api.Dispatch(ctx, e, tc.cmd, json.RawMessage(tc.arg))
		var ae *api.Error
		if err == nil || !errors.As(err, &ae) || ae.Code != api.CodeInvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: error %v, want an invalid-params error containing %q", tc.cmd, tc.arg, err, tc.want)
		}
	}
	// Commands without arguments accept none.
	if _, err := api.Dispatch(ctx, e, "gloss.list", nil); err != nil {
		t.Errorf("gloss.list without argument: %v", err)
	}
	// A huge limit is capped, not an overflow.
	if _, err := api.Dispatch(ctx, e, "gloss.search", json.RawMessage(`{"query":"x","limit":4611686018427387904}`)); err != nil {
		t.Errorf("huge limit: %v", err)
	}
}

// Every command is documented in docs/commands.md.
func TestCommandsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range api.Names() {
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/commands.md does not document %s", name)
		}
	}
}

func TestContext(t *testing.T) {
	e, root := newEngine(t)
	ctx := context.Background()
	uri := api.PathToURI(filepath.Join(root, "service.go"))
	for _, a := range []api.RememberArgs{
		{Location: api.Location{URI: uri, Range: api.LinesRange(8, 15)}, Text: "Retries are capped at three attempts", Type: "gotcha"},
		{Location: api.Location{URI: uri, Range: api.LinesRange(20, 23)}, Text: "Handle runs on the request goroutine; keep it cheap", Type: "convention"},
		{Location: api.Location{URI: uri, Range: api.LinesRange(3, 6)}, Text: strings.Repeat("A long history of Fetch. ", 80), Title: "Fetch history"},
	} {
		if _, err := e.Remember(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.Context(ctx, api.ContextArgs{Task: "change the retry attempts", Symbols: []string{"Handle"}, Budget: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 || res.Omitted != 0 && res.Items[0].Memory.Title == "Fetch history" {
		t.Fatalf("context items = %+v (omitted %d)", res.Items, res.Omitted)
	}
	if res.Tokens > 200 || !strings.Contains(res.Markdown, "## service.go") || !strings.Contains(res.Markdown, "[gloss:"+res.Items[0].Memory.ID+"]") {
		t.Errorf("briefing (%d tokens):\n%s", res.Tokens, res.Markdown)
	}
	// The long memory does not fit 200 tokens.
	if res.Omitted != 1 || strings.Contains(res.Markdown, "A long history") {
		t.Errorf("omitted %d, want the long memory left out:\n%s", res.Omitted, res.Markdown)
	}
	// A file brings its memories in; the whole file fits a larger budget.
	res, err = e.Context(ctx, api.ContextArgs{Task: "x", Files: []string{"service.go"}, Budget: 5000})
	if err != nil || len(res.Items) != 3 || res.Omitted != 0 {
		t.Fatalf("context of a file = %d items, %d omitted, %v", len(res.Items), res.Omitted, err)
	}
	if _, err := e.Context(ctx, api.ContextArgs{Files: []string{"/etc/passwd"}}); err == nil {
		t.Error("context of a file outside the workspace: want an error")
	}
	// A file that does not exist (a typo, or two paths in one "a,b") is
	// an error naming it, not a briefing without its memories; a file
	// with no memories gives an empty briefing.
	for _, f := range []string{"servce.go", "service.go,other.go"} {
		if _, err := e.Context(ctx, api.ContextArgs{Task: "x", Files: []string{f}}); err == nil || !strings.Contains(err.Error(), "no file "+f+" in the workspace") {
			t.Errorf("context of the missing file %q: %v", f, err)
		}
	}
	testutil.WriteFiles(t, root, map[string]string{"other.go": "package service\n"})
	if res, err := e.Context(ctx, api.ContextArgs{Files: []string{"other.go"}}); err != nil || len(res.Items) != 0 {
		t.Errorf("context of a file with no memories: %+v, %v", res.Items, err)
	}
}

func TestSearchFilters(t *testing.T) {
	e, root := newEngine(t)
	ctx := context.Background()
	uri := api.PathToURI(filepath.Join(root, "service.go"))
	for _, a := range []api.RememberArgs{
		{Location: api.Location{URI: uri, Range: api.LinesRange(8, 15)}, Text: "retry loop is capped", Type: "gotcha", Tags: []string{"net"}},
		{Location: api.Location{URI: uri, Range: api.LinesRange(20, 23)}, Text: "retry happens in Fetch, not here", Type: "decision"},
	} {
		if _, err := e.Remember(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	count := func(f memory.Filter) int {
		t.Helper()
		res, err := e.Search(ctx, api.SearchArgs{Query: "retry", Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Memories)
	}
	for name, tc := range map[string]struct {
		f    memory.Filter
		want int
	}{
		"none":         {memory.Filter{}, 2},
		"type":         {memory.Filter{Type: "decision"}, 1},
		"tag":          {memory.Filter{Tag: "NET"}, 1},
		"path pattern": {memory.Filter{Path: "*.go"}, 2},
		"other path":   {memory.Filter{Path: "pkg"}, 0},
		"symbol name":  {memory.Filter{Symbol: "Handle"}, 1},
		"stale only":   {memory.Filter{Stale: "only"}, 0},
		"confidence":   {memory.Filter{MinConfidence: 0.5}, 2},
	} {
		if got := count(tc.f); got != tc.want {
			t.Errorf("%s: %d results, want %d", name, got, tc.want)
		}
	}
	if _, err := e.Search(ctx, api.SearchArgs{Query: "retry", Filter: memory.Filter{Stale: "maybe"}}); err == nil {
		t.Error("stale=maybe: want an error")
	}
}

// TestNamesOfSeveralDefinitions: a name that several definitions have
// is refused by impact, why and memoriesForSymbol with the list of their
// SCIP symbols and places to choose from (impact and why said only how
// many there were), and memoriesForSymbol takes a unique name as
// remember --symbol does (it answered no memories).
func TestNamesOfSeveralDefinitions(t *testing.T) {
	e, root := newEngine(t)
	ctx := context.Background()
	testutil.WriteFiles(t, root, map[string]string{"client.go": "package service\n\n// Client calls servers.\ntype Client struct{}\n\n// Handle retries.\nfunc (c *Client) Handle(url string) string {\n\treturn Fetch(url)\n}\n"})
	if _, err := e.Index(ctx, api.NoArgs{}); err != nil {
		t.Fatal(err)
	}
	m, err := e.Remember(ctx, api.RememberArgs{Symbol: "Fetch", Text: "Fetch must not block"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.MemoriesForSymbol(ctx, api.SymbolArgs{Symbol: "Fetch"})
	if err != nil || len(res.Memories) != 1 || res.Memories[0].ID != m.ID {
		t.Errorf("memoriesForSymbol Fetch = %+v, %v; want the memory on Fetch", res.Memories, err)
	}
	for name, run := range map[string]func() error{
		"impact": func() error { _, err := e.Impact(ctx, api.ImpactArgs{Symbol: "Handle"}); return err },
		"why":    func() error { _, err := e.Why(ctx, api.WhyArgs{Symbol: "Handle"}); return err },
		"memoriesForSymbol": func() error {
			_, err := e.MemoriesForSymbol(ctx, api.SymbolArgs{Symbol: "Handle"})
			return err
		},
	} {
		err := run()
		if err == nil || !strings.Contains(err.Error(), "names 2 definitions") || !strings.Contains(err.Error(), "Server#Handle(). (service.go:21)") || !strings.Contains(err.Error(), "Client#Handle(). (client.go:7)") {
			t.Errorf("%s of Handle (2 definitions): %v; want both listed", name, err)
		}
	}
}
