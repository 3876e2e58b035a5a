package daemon

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/lsp"
)

// syncBuffer is a log the daemon writes from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// brokenGo returns about n bytes of Go that does not parse: tree-sitter's
// error recovery makes its parse take seconds (15 s for 900 KB measured).
func brokenGo(n int) string {
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "// F%d does things.\nfunc F%d(a, b int) int {\n\tx := a + b*%d\n\tif x > 3 {\n\t\treturn x\n\t}\n\treturn a - b\n}\n\n", i, i, i)
	}
	return strings.Replace(b.String(), "func F10(a, b int) int {", "func F10(a, b int) int { if (", 1)
}

// startMidParse starts a daemon on a new repository and an editor session
// that opens a large unparsable document, whose parse starts at once.
func startMidParse(t testing.TB, log *syncBuffer) (*Daemon, string, *lspconn.Client) {
	t.Helper()
	home := newEnv(t, inProcess).home
	root := newRepo(t, map[string]string{"calc.go": fixtureA, "go.mod": "module example.com/calc\n"})
	d, err := Start(Config{Dir: root, Memory: memOpts(home), Log: log, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := Dial(Target{Root: root, Home: home}, VerbLSP)
	if err != nil {
		t.Fatal(err)
	}
	c := lspconn.NewClient(conn, lspconn.ClientOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Initialize(ctx, root, false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "big.go")
	err = c.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": api.PathToURI(path), "languageId": "go", "version": 1, "text": brokenGo(900_000)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return d, home, c
}

// TestCloseMidParse stops a daemon while an editor's document is being
// parsed (a parse of seconds): the parse is interrupted, the session's
// background work ends and releases its workspace (no "still running"),
// and a new daemon takes the store over at once, without waiting for the
// lock of the old one (index.LockWait 0: a held lock fails at once).
func TestCloseMidParse(t *testing.T) {
	log := &syncBuffer{}
	d, home, _ := startMidParse(t, log)
	root := d.Hello().Root
	// Let the session take the document and start its parse (nothing
	// observable marks it; without the wait the test still passes, only
	// proving less).
	time.Sleep(300 * time.Millisecond)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	waitBackgroundEnded(t, d, log, true)
	wait := index.LockWait
	index.LockWait = 0
	defer func() { index.LockWait = wait }()
	d2, err := Start(Config{Dir: root, Memory: memOpts(home), Log: log, Version: "test"})
	if err != nil {
		t.Fatalf("a new daemon could not take the store over: %v", err)
	}
	if err := d2.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkStopMidParse measures how long a daemon takes to stop (Close,
// what SIGTERM runs) while an editor's 900 KB unparsable document is being
// parsed (the parse alone takes about 15 s).
func BenchmarkStopMidParse(b *testing.B) {
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		d, _, _ := startMidParse(b, &syncBuffer{})
		time.Sleep(300 * time.Millisecond) // let the parse start
		start := time.Now()
		if err := d.Close(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.95).Microseconds())/1000, "max-ms")
}

// TestSessionCloseMidParse: an editor that leaves while its document is
// being parsed (a parse of seconds) ends its session at once: the parse is
// cancelled (the daemon's other work goes on), nothing is left running and
// the daemon keeps serving.
func TestSessionCloseMidParse(t *testing.T) {
	log := &syncBuffer{}
	d, _, c := startMidParse(t, log)
	defer d.Close()
	time.Sleep(300 * time.Millisecond) // let the parse start (see TestCloseMidParse)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.Close(ctx)
	// A new session is served while the old one's end is awaited.
	conn, err := Dial(Target{Root: d.Hello().Root, Home: d.cfg.Memory.Home}, VerbLSP)
	if err != nil {
		t.Fatal(err)
	}
	c2 := lspconn.NewClient(conn, lspconn.ClientOptions{})
	if err := c2.Initialize(ctx, d.Hello().Root, false); err != nil {
		t.Fatal(err)
	}
	_ = c2.Close(ctx)
	// Both sessions end and their background work (the cancelled parse)
	// ends.
	for deadline := time.Now().Add(hangAfter); d.Hello().Sessions > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("sessions did not end in %s: %d", hangAfter, d.Hello().Sessions)
		}
	}
	waitBackgroundEnded(t, d, log, false)
}

// hangAfter is how long the mid-parse tests wait for an event before
// they take the daemon for hung: a hang detector, not a speed budget
// (under load an interrupted parse may take seconds to notice its flag;
// the uninterrupted parse of brokenGo is stopped by index.ParseTimeout,
// so a parse that ignored the interruption also ends, and these tests
// prove that the work ends and the workspace is released, not how fast).
const hangAfter = 3 * time.Minute

// waitBackgroundEnded waits until the daemon's sessions' background
// work has ended: at once when no session logged "background work still
// running" (it ended within lsp's own wait), else until each such session
// logs lsp.LateReleaseLog (its folders are released). With closed set (after d.Close) it
// first waits for the sessions' goroutines (d.wg). It fails after
// hangAfter.
func waitBackgroundEnded(t *testing.T, d *Daemon, log *syncBuffer, closed bool) {
	t.Helper()
	deadline := time.After(hangAfter)
	if closed {
		ended := make(chan struct{})
		go func() {
			d.wg.Wait()
			close(ended)
		}()
		select {
		case <-ended:
		case <-deadline:
			t.Fatalf("the daemon's sessions did not end in %s:\n%s", hangAfter, log.String())
		}
	}
	for {
		out := log.String()
		if strings.Count(out, "background work still running") <= strings.Count(out, lsp.LateReleaseLog) {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("the sessions' background work did not end in %s:\n%s", hangAfter, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
