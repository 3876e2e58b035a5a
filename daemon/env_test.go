package daemon

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/lsp"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/wspool"
)

// mode is how a test's sessions reach the engine, as in gopls's
// integration tests.
type mode string

const (
	// inProcess: lsp.Server in the test process, sessions sharing one
	// lsp.Workspaces over pipes (the daemon's core without its socket).
	inProcess mode = "in-process"
	// forwarded: a Daemon started in the test process; each session is
	// relayed by Forward over a real unix socket connection.
	forwarded mode = "forwarded"
	// separate: `gloss lsp` subprocesses, which start `gloss daemon` as a
	// separate process.
	separate mode = "separate"
)

var modes = []mode{inProcess, forwarded, separate}

// glossBin builds cmd/gloss once per test binary.
var glossBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "gloss-daemon-test-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "gloss")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/gloss")
	cmd.Env = origEnv // the developer's HOME, hence the warm build cache
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", &buildError{string(out), err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// origEnv is the environment before tests made HOME hermetic.
var origEnv []string

func TestMain(m *testing.M) {
	origEnv = os.Environ()
	code := m.Run()
	if bin, err := glossBin(); err == nil && strings.Contains(bin, "gloss-daemon-test-bin") {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

// env is one test's engine in one mode.
type env struct {
	t    testing.TB
	mode mode
	home string
	pool *wspool.Pool       // inProcess
	ds   map[string]*Daemon // forwarded, by root
	bin  string             // separate
	// roots whose separate daemons are stopped at cleanup
	mu    sync.Mutex
	roots map[string]bool
}

func memOpts(home string) memory.Options {
	return memory.Options{Home: home, Author: "Test Author"}
}

func newEnv(t testing.TB, m mode) *env {
	t.Helper()
	home := testutil.Hermetic(t)
	e := &env{t: t, mode: m, home: home, roots: map[string]bool{}, ds: map[string]*Daemon{}}
	switch m {
	case inProcess:
		e.pool = wspool.New(memOpts(home))
		t.Cleanup(func() { _ = e.pool.Close() })
	case separate:
		start := time.Now()
		bin, err := glossBin()
		t.Logf("gloss binary ready in %s", time.Since(start))
		if err != nil {
			t.Fatal(err)
		}
		e.bin = bin
		t.Cleanup(func() {
			for root := range e.roots {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				start := time.Now()
				_, err := Stop(ctx, Target{Root: root, Home: home})
				t.Logf("stop daemon: %v in %s", err, time.Since(start))
				cancel()
			}
		})
	}
	return e
}

// session is one LSP client session with what the server sent it.
type session struct {
	t    testing.TB
	root string
	c    *lspconn.Client
	raw  io.Writer // the connection, for writing malformed frames
	proc *exec.Cmd // separate: the gloss lsp process

	mu       sync.Mutex
	cond     *sync.Cond
	diags    map[string][]lsp.Diagnostic
	nDiag    int
	refresh  int
	lastSeen time.Time
}

// connect opens a session on the workspace root.
func (e *env) connect(root string) *session {
	e.t.Helper()
	s := &session{t: e.t, root: root, diags: map[string][]lsp.Diagnostic{}}
	s.cond = sync.NewCond(&s.mu)
	var rwc io.ReadWriteCloser
	switch e.mode {
	case inProcess:
		a, b := socketPair(e.t)
		srv := lsp.NewServer(lsp.Options{Memory: memOpts(e.home), Log: io.Discard, Pool: e.pool})
		go func() { _ = srv.Serve(context.Background(), a) }()
		rwc = b
	case forwarded:
		if e.ds[root] == nil {
			d, err := Start(Config{Dir: root, Memory: memOpts(e.home), Log: io.Discard, Version: "test"})
			if err != nil {
				e.t.Fatal(err)
			}
			e.ds[root] = d
			e.t.Cleanup(func() { _ = d.Close() })
		}
		c, err := Dial(Target{Root: root, Home: e.home}, VerbLSP)
		if err != nil {
			e.t.Fatal(err)
		}
		editor, fwd := socketPair(e.t)
		go func() {
			_ = Forward(fwd, fwd, c, nil)
			fwd.Close()
			c.Close()
		}()
		rwc = editor
	case separate:
		cmd := exec.Command(e.bin, "lsp", "--daemon-idle-timeout", "2m")
		cmd.Dir = root
		cmd.Env = os.Environ()
		in, err := cmd.StdinPipe()
		if err != nil {
			e.t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			e.t.Fatal(err)
		}
		cmd.Stderr = testWriter{e.t}
		if err := cmd.Start(); err != nil {
			e.t.Fatal(err)
		}
		s.proc = cmd
		e.mu.Lock()
		e.roots[root] = true
		e.mu.Unlock()
		rwc = procRWC{out, in}
	}
	s.raw = rwc
	s.c = lspconn.NewClient(rwc, lspconn.ClientOptions{
		OnNotification: s.notification,
		OnRequest: func(method string, _ json.RawMessage) {
			if method == "workspace/codeLens/refresh" {
				s.mu.Lock()
				s.refresh++
				s.lastSeen = time.Now()
				s.cond.Broadcast()
				s.mu.Unlock()
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	defer func() { e.t.Logf("%s session initialized in %s", e.mode, time.Since(start)) }()
	if err := s.c.Initialize(ctx, root, true); err != nil {
		e.t.Fatalf("initialize (%s): %v", e.mode, err)
	}
	e.t.Cleanup(s.close)
	return s
}

func (s *session) notification(method string, params json.RawMessage) {
	if method != "textDocument/publishDiagnostics" {
		return
	}
	var p struct {
		URI         string           `json:"uri"`
		Diagnostics []lsp.Diagnostic `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.mu.Lock()
	s.diags[p.URI] = p.Diagnostics
	s.nDiag++
	s.lastSeen = time.Now()
	s.cond.Broadcast()
	s.mu.Unlock()
}

// waitFor waits (up to 20 s) until cond, called with s.mu held, is true.
func (s *session) waitFor(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	timer := time.AfterFunc(20*time.Second, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s", what)
		}
		s.cond.Wait()
	}
}

func (s *session) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	err := s.c.Close(ctx)
	s.t.Logf("session close: %v in %s", err, time.Since(start))
	if s.proc != nil {
		done := make(chan struct{})
		go func() { _ = s.proc.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = s.proc.Process.Kill()
		}
	}
}

func (s *session) exec(command string, arg, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return s.c.Execute(ctx, command, arg, result)
}

func (s *session) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return s.c.Call(ctx, method, params, result)
}

func (s *session) open(path, text string) {
	s.t.Helper()
	err := s.c.Notify(context.Background(), "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": api.PathToURI(path), "languageId": "go", "version": 1, "text": text},
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// lenses returns the titles of the code lenses of path.
func (s *session) lenses(path string) []string {
	s.t.Helper()
	var ls []struct {
		Command struct {
			Title string `json:"title"`
		} `json:"command"`
	}
	if err := s.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": api.PathToURI(path)}}, &ls); err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, l := range ls {
		out = append(out, l.Command.Title)
	}
	return out
}

// procRWC is a subprocess's stdout and stdin as one connection.
type procRWC struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p procRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p procRWC) Close() error {
	p.w.Close()
	return p.ReadCloser.Close()
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// fixture is a Go repository with functions to anchor memories to.
const fixtureA = `package calc

// Add adds.
func Add(a, b int) int {
	return a + b
}

// Sub subtracts.
func Sub(a, b int) int {
	return a - b
}
`

func newRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	root := testutil.InitRepo(t)
	testutil.WriteFiles(t, root, files)
	testutil.Commit(t, root, "init")
	return root
}

// rangeOf returns the 0-based LSP range of 1-based inclusive lines.
func rangeOf(first, last int) lsp.Range {
	return lsp.Range{Start: lsp.Position{Line: first - 1}, End: lsp.Position{Line: last}}
}

// ctxT is a context that ends with the test (at most a minute).
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// socketPair returns the two ends of a connected unix socket pair: a
// buffered, full-duplex connection like the daemon's (net.Pipe is
// unbuffered, which real clients are not).
func socketPair(t testing.TB) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) net.Conn {
		f := os.NewFile(uintptr(fd), "socketpair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return conn(fds[0]), conn(fds[1])
}
