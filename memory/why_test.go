package memory_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

var updateWhy = flag.Bool("update-why", false, "rewrite memory/testdata/why.golden")

// TestWhyGolden: the memories on a symbol, on its caller and container,
// and those related to them, oldest first, as Markdown and Mermaid.
func TestWhyGolden(t *testing.T) {
	gh := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"svc.go": `package svc

// Client talks to the upstream.
type Client struct{ tries int }

// Retry calls f until it succeeds, at most c.tries times.
func (c *Client) Retry(f func() error) error {
	var err error
	for i := 0; i < c.tries; i++ {
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}

// Fetch gets the page, retrying.
func Fetch(c *Client) error {
	return c.Retry(func() error { return nil })
}

// Unrelated is not near Retry.
func Unrelated() {}
`})
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	w, err := memory.Open(repo, memory.Options{Home: gh, Author: "golden", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	var ids []string
	add := func(sym, typ, text string) string {
		t.Helper()
		now = now.Add(24 * time.Hour)
		m, err := w.Remember(ctx, memory.RememberRequest{Text: text, Symbol: sym, Type: typ})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
		return m.ID
	}
	relate := func(a, kind, b string) {
		t.Helper()
		if _, err := w.Relate(a, kind, b, false); err != nil {
			t.Fatal(err)
		}
	}
	old := add("Client.Retry", "decision", "Retry five times\nThe upstream was flaky in 2024.")
	add("Fetch", "gotcha", "Fetch must not be called in a loop\nEach call already retries; a loop multiplies the load.")
	cur := add("Client.Retry", "decision", "Retry at most c.tries times\nThe upstream rate-limits bursts \"hard\"; the cap is configurable.")
	relate(cur, memory.RelSupersedes, old)
	inc := add("Unrelated", "error_pattern", "Incident 42: retry storm\nA retry storm took the upstream down.")
	relate(cur, memory.RelDerivedFrom, inc)
	add("Client", "convention", "Clients are built with NewClient\nNever construct Client literals.")
	add("Unrelated", "note", "Unrelated is a placeholder.")

	res, err := w.Why("Client.Retry")
	if err != nil {
		t.Fatal(err)
	}
	got := memory.WhyMarkdown(res, w.RelatedTitle) + "\n---\n\n" + memory.WhyMermaid(res)
	for i, id := range ids {
		got = strings.ReplaceAll(got, id, fmt.Sprintf("ID%d", i+1))
	}
	golden := filepath.Join("testdata", "why.golden")
	if *updateWhy {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("why output differs from %s (go test -run TestWhyGolden -update-why rewrites it):\n%s", golden, got)
	}
	if _, err := w.Why("NoSuchThing"); err == nil {
		t.Error("why of an unknown symbol: no error")
	}
}
