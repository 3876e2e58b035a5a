package daemon

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// stressFiles is a repository of 4 files with 10 functions each.
func stressFiles() (map[string]string, map[string][][2]int) {
	files := map[string]string{"go.mod": "module example.com/stress\n"}
	funcs := map[string][][2]int{}
	for f := 0; f < 4; f++ {
		var b strings.Builder
		b.WriteString("package stress\n")
		line := 1
		name := fmt.Sprintf("f%d.go", f)
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&b, "\n// F%d_%d computes.\nfunc F%d_%d(x int) int {\n\ty := x * %d\n\treturn y + %d\n}\n", f, i, f, i, i+2, f)
			funcs[name] = append(funcs[name], [2]int{line + 2, line + 6})
			line += 6
		}
		files[name] = b.String()
	}
	return files, funcs
}

// ledger is what the clients were told: acknowledged memories and their
// last acknowledged text, and the writes whose outcome is unknown because
// the daemon died before answering.
type ledger struct {
	mu        sync.Mutex
	text      map[string]string          // acknowledged, not forgotten: id → body
	maybe     map[string]map[string]bool // id → other bodies it may have
	forgotten map[string]bool            // acknowledged forgets
	maybeGone map[string]bool            // forgets without an answer
	acked     int                        // acknowledged writes
}

// TestStressSIGKILL drives 4 concurrent clients (each a `gloss lsp`
// process forwarding to one daemon process) through 1,000 mixed
// operations, kills the daemon with SIGKILL half way, lets the clients
// restart it, and checks that every acknowledged memory is in the store
// with its last acknowledged text.
func TestStressSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test")
	}
	e := newEnv(t, separate)
	files, funcs := stressFiles()
	root := newRepo(t, files)
	paths, err := PathsFor(e.home, memory.ProjectID(root))
	if err != nil {
		t.Fatal(err)
	}
	const clients, perClient, killAt = 4, 250, 500
	led := &ledger{text: map[string]string{}, maybe: map[string]map[string]bool{}, forgotten: map[string]bool{}, maybeGone: map[string]bool{}}
	var ops, failed, reconnects atomic.Int64
	var killed atomic.Bool
	var killedPID int
	kill := func() {
		data, err := os.ReadFile(paths.Lock)
		if err != nil {
			t.Errorf("read daemon pid: %v", err)
			return
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Errorf("daemon pid %q: %v", data, err)
			return
		}
		killedPID = pid
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Errorf("kill daemon %d: %v", pid, err)
		}
	}
	names := []string{"f0.go", "f1.go", "f2.go", "f3.go"}
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(c) + 1))
			s := e.connect(root)
			var mine []string
			for i := 0; i < perClient; i++ {
				if n := ops.Add(1); n == killAt && killed.CompareAndSwap(false, true) {
					kill()
				}
				var err error
				var id string
				r := rng.Intn(100)
				switch {
				case r < 45 || len(mine) == 0: // remember
					name := names[rng.Intn(len(names))]
					fn := funcs[name][rng.Intn(10)]
					text := fmt.Sprintf("client %d op %d: a note", c, i)
					var v memory.View
					err = s.exec("gloss.remember", map[string]any{"uri": api.PathToURI(filepath.Join(root, name)), "range": rangeOf(fn[0], fn[1]), "text": text}, &v)
					if err == nil {
						led.mu.Lock()
						led.text[v.ID] = text
						led.acked++
						led.mu.Unlock()
						mine = append(mine, v.ID)
					}
				case r < 65: // update
					id = mine[rng.Intn(len(mine))]
					text := fmt.Sprintf("client %d op %d: updated", c, i)
					err = s.exec("gloss.update", map[string]any{"id": id, "text": text}, nil)
					led.mu.Lock()
					switch {
					case err == nil:
						if _, ok := led.text[id]; ok {
							led.text[id] = text
							led.acked++
						}
					case isConnErr(err):
						if led.maybe[id] == nil {
							led.maybe[id] = map[string]bool{}
						}
						led.maybe[id][text] = true
					}
					led.mu.Unlock()
				case r < 75: // forget
					k := rng.Intn(len(mine))
					id = mine[k]
					err = s.exec("gloss.forget", map[string]any{"id": id}, nil)
					led.mu.Lock()
					switch {
					case err == nil:
						delete(led.text, id)
						led.forgotten[id] = true
						led.acked++
						mine = append(mine[:k], mine[k+1:]...)
					case isConnErr(err):
						led.maybeGone[id] = true
					}
					led.mu.Unlock()
				case r < 85: // verify
					id = mine[rng.Intn(len(mine))]
					err = s.exec("gloss.verify", map[string]any{"id": id}, nil)
				default: // read
					err = s.exec("gloss.list", nil, nil)
				}
				if err != nil {
					failed.Add(1)
					if isConnErr(err) {
						// The daemon died: the editor restarts gloss lsp, which
						// starts a new daemon (four clients race to do so).
						s.close()
						s = e.connect(root)
						reconnects.Add(1)
					} else if !strings.Contains(err.Error(), "no memory") {
						t.Errorf("client %d op %d: %v", c, i, err)
					}
				}
			}
			s.close()
		}(c)
	}
	wg.Wait()
	if !killed.Load() {
		t.Fatal("the daemon was never killed")
	}
	if log, err := os.ReadFile(paths.Log); err == nil {
		t.Logf("daemon log:\n%s", log)
	}
	// Read the store directly after stopping the daemon.
	ctx := ctxT(t)
	if _, err := Stop(ctx, Target{Root: root, Home: e.home}); err != nil && !errors.Is(err, ErrNotRunning) {
		t.Fatal(err)
	}
	w, err := memory.Open(root, memory.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	all, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, m := range all {
		stored[m.ID] = m.Body
	}
	lost := 0
	for id, text := range led.text {
		body, ok := stored[id]
		switch {
		case ok && (body == text || led.maybe[id][body]):
		case !ok && led.maybeGone[id]:
		default:
			lost++
			t.Errorf("memory %s: stored %q (present %v), acknowledged %q", id, body, ok, text)
		}
	}
	resurrected := 0
	for id := range led.forgotten {
		if _, ok := stored[id]; ok {
			resurrected++
			t.Errorf("memory %s was forgotten (acknowledged) but is stored", id)
		}
	}
	t.Logf("%d operations by %d clients, daemon pid %d SIGKILLed at operation %d; %d acknowledged writes, %d live memories acknowledged, %d stored; %d failed operations, %d reconnects; lost %d, resurrected %d",
		ops.Load(), clients, killedPID, killAt, led.acked, len(led.text), len(stored), failed.Load(), reconnects.Load(), lost, resurrected)
}

// isConnErr reports whether err means the session's connection broke.
func isConnErr(err error) bool {
	s := err.Error()
	for _, m := range []string{"closed", "EOF", "broken pipe", "connection reset", "deadline exceeded"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}
