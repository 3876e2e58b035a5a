package lsp

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
)

// A hover is answered from what is indexed so far while the start-up
// index run is still parsing (held midway here), and that run reports
// $/progress begin, per-file reports and end (issue #12).
func TestHoverDuringBackgroundIndex(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	first := start(t, root, clientOpts{})
	rememberRetry(t, first)
	first.close()

	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("pkg/f%02d.go", i)] = fmt.Sprintf("package pkg\n\nfunc F%d() int { return %d }\n", i, i)
	}
	testutil.WriteFiles(t, root, files)
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	restore := index.SetParseHook(func(string) {
		once.Do(func() { close(held) })
		<-release
	})
	defer restore()
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	defer unblock()

	c := start(t, root, clientOpts{noWait: true})
	<-held // the start-up run is parsing the new files
	c.open("main.go", mainGo)
	h := c.hover("main.go", Position{Line: testutil.LineOf(t, mainGo, "for i := 0") - 1, Character: 3})
	if h == nil || !strings.Contains(h.Contents.Value, "Retry cap") {
		t.Fatalf("hover during indexing = %+v, want the memory", h)
	}
	c.mu.Lock()
	before := strings.Join(c.events, " ")
	c.mu.Unlock()
	if !strings.Contains(before, "$/progress:begin") || strings.Contains(before, "$/progress:end") {
		t.Fatalf("events before the index was released: %s (want begin, no end)", before)
	}
	unblock()
	c.waitEvent("$/progress:end")
	c.mu.Lock()
	events := strings.Join(c.events, " ")
	c.mu.Unlock()
	if n := strings.Count(events, "$/progress:report"); n < 2 {
		t.Errorf("events %s: want a $/progress report per file parsed (%d)", events, n)
	}
}
