package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/internal/testutil"
	glossmcp "github.com/gloss-dev/gloss/mcp"
)

// buildGloss builds cmd/gloss into a temporary directory.
func buildGloss(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the gloss binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "gloss")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/gloss").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// fixtureRepo makes a hermetic repository holding service.go.
func fixtureRepo(t *testing.T) string {
	t.Helper()
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/service\n", "service.go": serviceGo})
	testutil.Commit(t, repo, "init")
	return repo
}

// startBinary starts `gloss -C repo mcp ARGS` and connects the SDK's
// client to it over stdio with CommandTransport; the session is closed
// (and the process ends) when the test ends.
func startBinary(t *testing.T, bin, repo string, args ...string) *fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, append([]string{"-C", repo, "mcp"}, args...)...)
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("gloss mcp stderr:\n%s", stderr.String())
		}
	})
	return &fixture{t: t, root: repo, cs: cs}
}

// exercise runs the scenario every binary test shares: list tools,
// remember, memories_at, a path outside refused, edit + commit, check
// reports the memory stale, the memory resource says so. It returns the
// memory's id.
func exercise(t *testing.T, f *fixture) string {
	t.Helper()
	ctx := context.Background()
	if got := f.cs.InitializeResult().ServerInfo.Name; got != "gloss" {
		t.Errorf("server name = %q", got)
	}
	tools, err := f.cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(toolNames) {
		t.Fatalf("tools: %v, %v", tools, err)
	}
	first, last := testutil.DefLines(t, serviceGo, "func retry")
	var rem glossmcp.MemoryOutput
	f.mustOK("remember", map[string]any{"text": "retry gives up after three attempts", "path": "service.go", "start_line": first, "end_line": last}, &rem)
	var at glossmcp.MemoriesOutput
	f.mustOK("memories_at", map[string]any{"path": "service.go", "start_line": first}, &at)
	if at.Count != 1 || at.Memories[0].ID != rem.Memory.ID {
		t.Fatalf("memories_at = %+v", at)
	}
	if msg := f.mustFail("memories_at", map[string]any{"path": "../outside.go"}); !strings.Contains(msg, "outside the workspace") {
		t.Errorf("path outside: %s", msg)
	}

	testutil.WriteFiles(t, f.root, map[string]string{"service.go": strings.Replace(serviceGo, "i < 3", "i < 4", 1)})
	testutil.Commit(t, f.root, "four attempts")
	var ck glossmcp.CheckOutput
	f.mustOK("check", map[string]any{}, &ck)
	if ck.StaleCount != 1 || len(ck.Stale) != 1 || !strings.Contains(ck.Stale[0].Diff, "i < 4") {
		t.Fatalf("check = %+v", ck)
	}
	rr, err := f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: glossmcp.MemoryURI(rem.Memory.ID)})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "stale: true") {
		t.Fatalf("memory resource: %v %v", rr, err)
	}
	return rem.Memory.ID
}

// TestBinaryStdio runs the real binary over stdio with --no-daemon.
func TestBinaryStdio(t *testing.T) {
	bin := buildGloss(t)
	exercise(t, startBinary(t, bin, fixtureRepo(t), "--no-daemon"))
}

// daemonPID returns the pid of the daemon serving repo, 0 when none runs.
func daemonPID(t *testing.T, bin, repo string) int {
	t.Helper()
	out, err := exec.Command(bin, "-C", repo, "daemon", "status", "--json").Output()
	var st struct {
		Running bool `json:"running"`
		PID     int  `json:"pid"`
	}
	if jerr := json.Unmarshal(out, &st); jerr != nil {
		t.Fatalf("daemon status: %v, %v\n%s", err, jerr, out)
	}
	return st.PID
}

// TestBinaryStdioDaemon runs the real binary through the workspace's
// daemon, which it starts; when that daemon is stopped, the next tool call
// starts a new one and goes on.
func TestBinaryStdioDaemon(t *testing.T) {
	bin := buildGloss(t)
	repo := fixtureRepo(t)
	t.Cleanup(func() {
		if out, err := exec.Command(bin, "-C", repo, "daemon", "stop").CombinedOutput(); err != nil {
			t.Errorf("daemon stop: %v\n%s", err, out)
		}
	})
	f := startBinary(t, bin, repo)
	id := exercise(t, f)
	pid := daemonPID(t, bin, repo)
	if pid == 0 {
		t.Fatal("no daemon serves the workspace after the session")
	}
	if out, err := exec.Command(bin, "-C", repo, "daemon", "stop").CombinedOutput(); err != nil {
		t.Fatalf("daemon stop: %v\n%s", err, out)
	}
	var shown glossmcp.MemoryOutput
	f.mustOK("show", map[string]any{"id": id}, &shown)
	if !shown.Memory.Stale {
		t.Errorf("show after the daemon restarted = %+v", shown.Memory)
	}
	if again := daemonPID(t, bin, repo); again == 0 || again == pid {
		t.Errorf("daemon pid after restart = %d (was %d)", again, pid)
	}
}

// TestBinaryHTTP runs `gloss mcp --http 127.0.0.1:0 --no-daemon` and
// calls it with the SDK's streamable HTTP client.
func TestBinaryHTTP(t *testing.T) {
	bin := buildGloss(t)
	repo := fixtureRepo(t)
	cmd := exec.Command(bin, "-C", repo, "mcp", "--no-daemon", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	// "gloss mcp: serving ROOT over streamable HTTP at http://127.0.0.1:PORT/"
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), " at http://"); ok {
				endpoint <- "http://" + url
			}
		}
	}()
	var url string
	select {
	case url = <-endpoint:
	case <-time.After(time.Minute):
		t.Fatal("gloss mcp --http did not report its address")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-http", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer cs.Close()
	f := &fixture{t: t, root: repo, cs: cs}
	first, last := testutil.DefLines(t, serviceGo, "func Fetch")
	var rem glossmcp.MemoryOutput
	f.mustOK("remember", map[string]any{"text": "Fetch is the public entry point", "path": "service.go", "start_line": first, "end_line": last}, &rem)
	var sr glossmcp.SearchOutput
	f.mustOK("search", map[string]any{"query": "entry point"}, &sr)
	if sr.Count != 1 || sr.Hits[0].ID != rem.Memory.ID {
		t.Fatalf("search = %+v", sr)
	}
}
