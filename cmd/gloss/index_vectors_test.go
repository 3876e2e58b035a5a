package main

import (
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// gloss index after switching to an openai: embedder whose server
// refuses connections finishes: the files are indexed, the message says
// the vectors are not updated and what to do, the exit code is
// exitVectorsPending, --json carries vectors_pending, and the memory is
// kept.
func TestIndexRefusingEmbedderExits(t *testing.T) {
	_, repo := cliRepo(t)
	if _, _, err := run(t, repo, "", "--no-daemon", "index"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, repo, "", "--no-daemon", "remember", "Capped at 3", "--at", "main.go:4-12"); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	t.Setenv("GLOSS_EMBEDDER", "openai:fake@http://"+addr)
	minP, maxP, giveUp := memory.ReembedRetryMin, memory.ReembedRetryMax, memory.ReembedForegroundGiveUp
	memory.ReembedRetryMin, memory.ReembedRetryMax, memory.ReembedForegroundGiveUp = time.Millisecond, 4*time.Millisecond, 50*time.Millisecond
	defer func() {
		memory.ReembedRetryMin, memory.ReembedRetryMax, memory.ReembedForegroundGiveUp = minP, maxP, giveUp
	}()

	out, errOut, err := run(t, repo, "", "--no-daemon", "index")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != exitVectorsPending {
		t.Fatalf("index: %v, want exit %d\n%s%s", err, exitVectorsPending, out, errOut)
	}
	if !strings.Contains(out, "files:   1") || !strings.Contains(errOut, "vectors not updated: 1 of 1 memories wait for openai:fake") ||
		!strings.Contains(errOut, "connection refused") || !strings.Contains(errOut, "run gloss index again") {
		t.Fatalf("index output:\n%s\nstderr:\n%s", out, errOut)
	}
	out, _, err = run(t, repo, "", "--no-daemon", "index", "--json")
	var res struct {
		VectorsPending struct {
			Model          string
			Pending, Total int
		} `json:"vectors_pending"`
	}
	if !errors.As(err, &ee) || ee.code != exitVectorsPending || json.Unmarshal([]byte(out), &res) != nil ||
		res.VectorsPending.Model != "openai:fake" || res.VectorsPending.Pending != 1 || res.VectorsPending.Total != 1 {
		t.Fatalf("index --json: %v\n%s", err, out)
	}
	out, _, err = run(t, repo, "", "--no-daemon", "list", "--json")
	if err != nil || !strings.Contains(out, "Capped at 3") {
		t.Fatalf("list after the failed re-embedding: %v\n%s", err, out)
	}
}
