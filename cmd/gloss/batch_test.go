package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/api"
)

func TestReadBatchLines(t *testing.T) {
	in := "one\n" + strings.Repeat("x", 11) + "\n\r\nexactly10!\r\n" + strings.Repeat("y", 30) + "\nlast"
	var got []string
	err := readBatchLines(strings.NewReader(in), 10, func(n int, line []byte, err error) bool {
		if err != nil {
			got = append(got, "ERR")
		} else {
			got = append(got, string(line))
		}
		return true
	})
	want := []string{"one", "ERR", "", "exactly10!", "ERR", "last"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q, %v; want %q", got, err, want)
	}
}

// Issue 17: a line over 16 MiB aborted the whole batch, a second JSON
// object on a line was dropped and invalid UTF-8 was replaced. Each is now
// an error of its own line; the other lines are remembered.
func TestBatchPerLineErrors(t *testing.T) {
	_, repo := cliRepo(t)
	huge := `{"text":"` + strings.Repeat("a", maxBatchLine) + `","at":"main.go:4-12"}`
	batch := strings.Join([]string{
		`{"text":"first","at":"main.go:4-12"}`,
		huge,
		`{"text":"two objects","at":"main.go:4-12"} {"text":"dropped","at":"main.go:4-12"}`,
		"{\"text\":\"caf\xe9\",\"at\":\"main.go:4-12\"}",
		`{"text":"last","at":"main.go:14-17"}`,
	}, "\n")
	out, _, err := run(t, repo, batch, "--no-daemon", "remember", "--batch", "-", "--json")
	if err == nil {
		t.Error("batch with bad lines: want a non-zero exit")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("batch printed %d lines, want 5:\n%.2000s", len(lines), out)
	}
	for i, want := range []string{"", "16 MiB", "more than one JSON value", "UTF-8", ""} {
		var v struct{ ID, Error string }
		if err := json.Unmarshal([]byte(lines[i]), &v); err != nil {
			t.Fatal(err)
		}
		if want == "" && v.ID == "" || want != "" && !strings.Contains(v.Error, want) {
			t.Errorf("line %d: %s, want %q", i+1, lines[i], want)
		}
	}
	out, _, err = run(t, repo, "", "--no-daemon", "list")
	if err != nil || !strings.Contains(out, "2 memories") {
		t.Errorf("list: %v\n%s", err, out)
	}
}

// Titles and bodies are printed with terminal controls escaped by list and
// show; --json keeps them as they are.
func TestTerminalEscapesInOutput(t *testing.T) {
	_, repo := cliRepo(t)
	title := "evil \x1b]0;pwned\x07 title \u009b2J"
	body := "line one\n\x1b[2Jcleared\rover\u202eevil"
	out, _, err := run(t, repo, "", "--no-daemon", "remember", body, "--title", title, "--at", "main.go:4-12", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ ID, Title, Body string }
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.Title != title || m.Body != body {
		t.Fatalf("--json changed the text: %+v %v", m, err)
	}
	for _, args := range [][]string{{"list"}, {"show", m.ID}} {
		out, _, err := run(t, repo, "", append([]string{"--no-daemon"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(out, "\x1b\x07\r\u009b\u202e") {
			t.Errorf("%v printed terminal controls: %q", args, out)
		}
		if !strings.Contains(out, `\x1b]0;pwned\x07`) {
			t.Errorf("%v: escaped title missing: %q", args, out)
		}
	}
}

// FuzzBatchLine: parsing a --batch line never panics, and an accepted
// line yields valid UTF-8 text.
func FuzzBatchLine(f *testing.F) {
	f.Add([]byte(`{"text":"first","at":"main.go:4-12","tags":["a"]}`))
	f.Add([]byte(`{"text":"a"} {"text":"b"}`))
	f.Add([]byte("{\"text\":\"caf\xe9\"}"))
	f.Add([]byte(`{"text":"x","at":"main.go"}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := parseBatchLine(line, func(p string, first, last int) (api.Location, error) {
			return api.Location{URI: api.PathToURI("/" + p), Range: api.LinesRange(first, last)}, nil
		})
		if err != nil {
			return
		}
		if !utf8.Valid(line) || !utf8.ValidString(req.Text) || !utf8.ValidString(req.Title) {
			t.Fatalf("accepted invalid UTF-8: %q", line)
		}
	})
}

// A --batch line without text (missing, empty or blank) is an error of
// that line, as `gloss remember ""` is: it never becomes a draft (a
// project-scope "TODO: describe" memory whose file lands in the
// repository's .gloss/memories/), and the other lines are remembered.
func TestBatchEmptyText(t *testing.T) {
	_, repo := cliRepo(t)
	batch := `{"text":"","at":"main.go:4-12"}` + "\n" + `{"at":"main.go:4-12","title":"no text"}` + "\n" +
		`{"text":"  \n ","symbol":"Retry"}` + "\n" + `{"text":"kept","at":"main.go:4-12"}` + "\n"
	out, _, err := run(t, repo, batch, "--no-daemon", "remember", "--batch", "-", "--json")
	if err == nil {
		t.Errorf("batch with empty texts: want a non-zero exit")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("printed %d lines, want 4:\n%s", len(lines), out)
	}
	for i, l := range lines[:3] {
		if !strings.Contains(l, `"error":"missing \"text\"`) {
			t.Errorf("line %d: %s, want a missing text error", i+1, l)
		}
	}
	if !strings.Contains(lines[3], `"id"`) {
		t.Errorf("line 4: %s, want it remembered", lines[3])
	}
	if _, err := os.Stat(filepath.Join(repo, ".gloss", "memories")); !os.IsNotExist(err) {
		t.Errorf(".gloss/memories after the batch: %v, want none", err)
	}
}

// streamPrinter prints lines in order whatever order the stream items'
// results come in, each once, as soon as every line before it is
// answered (a malformed line is answered when read), and drops what it
// printed.
func TestStreamPrinterInOrder(t *testing.T) {
	var p streamPrinter
	var printed []int
	print := func(ls []batchResult) {
		for _, l := range ls {
			printed = append(printed, l.line)
		}
	}
	answer := func(i int) {
		p.item(i).done = true
		p.advance(print)
	}
	p.add(batchResult{line: 1}, true)                        // item 0
	p.add(batchResult{line: 2, err: errors.New("x")}, false) // malformed
	p.add(batchResult{line: 3}, true)                        // item 1
	p.advance(print)
	if len(printed) != 0 {
		t.Fatalf("printed %v before line 1 was answered", printed)
	}
	answer(1)
	if len(printed) != 0 {
		t.Fatalf("printed %v before line 1 was answered", printed)
	}
	answer(0)
	if fmt.Sprint(printed) != "[1 2 3]" {
		t.Fatalf("after item 0: printed %v, want lines 1-3", printed)
	}
	p.add(batchResult{line: 4}, true) // item 2
	p.add(batchResult{line: 5}, true) // item 3
	p.add(batchResult{line: 6, err: errors.New("x")}, false)
	answer(3)
	answer(2)
	if fmt.Sprint(printed) != "[1 2 3 4 5 6]" {
		t.Fatalf("printed %v, want [1 2 3 4 5 6]", printed)
	}
	if len(p.lines) != 0 || len(p.items) != 0 {
		t.Errorf("kept %d lines and %d items after printing them all", len(p.lines), len(p.items))
	}
}

// batchSize counts the lines of a regular file (the last one without a
// line end too) and leaves it at its start; a pipe's size is unknown.
func TestBatchSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.jsonl")
	if err := os.WriteFile(p, []byte("a\nb\n\nc"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := batchSize(f); n != 4 {
		t.Fatalf("batchSize = %d, want 4", n)
	}
	if b, _ := io.ReadAll(f); string(b) != "a\nb\n\nc" {
		t.Fatalf("read %q after batchSize, want the whole file", b)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if n := batchSize(r); n != 0 {
		t.Fatalf("batchSize of a pipe = %d, want 0", n)
	}
	if n := batchSize(strings.NewReader("x\n")); n != 0 {
		t.Fatalf("batchSize of a reader = %d, want 0", n)
	}
}

// decodeBatchLine accepts and rejects what encoding/json's Decoder (one
// value, then the end) accepts and rejects, with the same values and
// error messages: keys in any case, repeated keys, escapes, unknown and
// nested fields, null, wrong types, trailing values and garbage.
func TestDecodeBatchLineAsStd(t *testing.T) {
	lines := []string{
		`{"text":"first","at":"main.go:4-12","tags":["a","b"],"type":"gotcha","title":"T","symbol":"S","scope":"project"}`,
		`{"TEXT":"upper","At":"x.go:1"}`, `{"text":"a","text":"b"}`, `{"text":"\u00e9\ud83d\ude00 \\ \" \/ \b\f\n\r\t"}`,
		`{"text":"x","extra":{"deep":[1,2,{"n":null}],"f":1.5e300}}`, `null`, `{}`, `{"text":null,"tags":null}`,
		`{"text":1}`, `{"tags":"a"}`, `{"tags":[1]}`, `{"text":"a"} {"text":"b"}`, `{"text":"a"} x`, `{"text":"a"}   `,
		`{"text":"a"`, `{"text":"\x"}`, `{"text":"a",}`, `[1,2]`, `"text"`, `{"text":"a"}]`, ` {"text":"lead"}`,
		`{"text":"ctl` + "\x01" + `"}`, `{"text":01}`, `{"text":"a","at":true}`, `{'text':'a'}`, ``, `   `,
	}
	for _, line := range lines {
		if d := batchLineDiff([]byte(line)); d != "" {
			t.Error(d)
		}
	}
}

// FuzzDecodeBatchLineAsStd: decodeBatchLine and encoding/json agree on
// any line (TestDecodeBatchLineAsStd's check).
func FuzzDecodeBatchLineAsStd(f *testing.F) {
	f.Add([]byte(`{"text":"first","at":"main.go:4-12","tags":["a"]}`))
	f.Add([]byte(`{"TEXT":"a","text":"b","x":[{}]}`))
	f.Add([]byte(`{"text":"\u00e9"} x`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if d := batchLineDiff(line); d != "" {
			t.Fatal(d)
		}
	})
}

// batchLineDiff returns "" when decodeBatchLine decodes line as
// encoding/json's Decoder does (one value, then the end), else what
// differs.
func batchLineDiff(line []byte) string {
	var want batchLine
	dec := json.NewDecoder(bytes.NewReader(line))
	wantErr := dec.Decode(&want)
	if wantErr != nil {
		wantErr = fmt.Errorf("invalid JSON: %w", wantErr)
	} else if _, err := dec.Token(); err != io.EOF {
		wantErr = fmt.Errorf("more than one JSON value on the line (give one object per line)")
	}
	got, err := decodeBatchLine(line)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		return fmt.Sprintf("%q: error %v, encoding/json's %v", line, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%q: %+v, encoding/json's %+v", line, got, want)
	}
	return ""
}

// Through a daemon, `remember --batch` sends batchChunk well-formed lines
// per call and reads the next call's lines while one runs (sendBatches):
// every line is printed once, in input order, malformed lines as errors
// in their place, and every well-formed line is stored.
func TestBatchThroughDaemon(t *testing.T) {
	_, repo := cliRepo(t)
	defer func(n int) { batchChunk = n }(batchChunk)
	batchChunk = 2
	done := make(chan error, 1)
	go func() {
		_, _, err := run(t, repo, "", "daemon", "--idle-timeout", "0")
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, _, err := run(t, repo, "", "daemon", "status"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer func() {
		if _, _, err := run(t, repo, "", "daemon", "stop"); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Errorf("daemon: %v", err)
		}
	}()
	var lines []string
	bad := map[int]bool{2: true, 5: true, 6: true}
	for i := range 11 {
		if bad[i] {
			lines = append(lines, fmt.Sprintf(`{"text":"bad %d","at":"main.go:99-100"}`, i))
			continue
		}
		lines = append(lines, fmt.Sprintf(`{"text":"note %d","at":"main.go:4-12"}`, i))
	}
	out, _, err := run(t, repo, strings.Join(lines, "\n"), "remember", "--batch", "-", "--json")
	if err == nil {
		t.Error("batch with bad lines: want a non-zero exit")
	}
	got := strings.Split(strings.TrimSpace(out), "\n")
	if len(got) != len(lines) {
		t.Fatalf("printed %d lines, want %d:\n%s", len(got), len(lines), out)
	}
	for i, l := range got {
		var v struct{ ID, Body, Error string }
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		if bad[i] != (v.Error != "") || !bad[i] && v.Body != fmt.Sprintf("note %d", i) {
			t.Errorf("line %d: %s", i+1, l)
		}
	}
	out, _, err = run(t, repo, "", "list", "--json")
	var listed struct{ Memories []struct{ Body string } }
	if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed.Memories) != len(lines)-len(bad) {
		t.Errorf("list through the daemon: %v, %d memories, want %d", err, len(listed.Memories), len(lines)-len(bad))
	}
}
