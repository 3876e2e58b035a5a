package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/viewjson"
)

// maxBatchLine is the longest line `gloss remember --batch` accepts, in
// bytes (16 MiB). A longer line is a per-line error; the batch goes on.
const maxBatchLine = 16 << 20

// readBatchLines calls fn for each line of r with its 1-based number and
// content (without the line end), or with an error for a line longer than
// max bytes, whose content is skipped without being held in memory. It
// returns read errors of r.
func readBatchLines(r io.Reader, max int, fn func(n int, line []byte, err error) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	tooLong := false
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > max+2 { // room for "\r\n"
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong || len(buf) > 0 || err == nil {
			n++
			line := bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
			var more bool
			if tooLong || len(line) > max {
				more = fn(n, nil, fmt.Errorf("longer than the limit of %d bytes (16 MiB); skipped", max))
			} else {
				more = fn(n, line, nil)
			}
			if !more {
				return nil
			}
		}
		buf, tooLong = buf[:0], false
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readBatchRequests calls fn for each line of r that is not blank
// (readBatchLines) with its 1-based number and its request
// (parseBatchLine), or the line's error; fn returns false to stop
// reading. It returns read errors of r.
func readBatchRequests(r io.Reader, locate func(path string, first, last int) (api.Location, error), fn func(n int, req api.RememberArgs, err error) bool) error {
	return readBatchLines(r, maxBatchLine, func(n int, line []byte, err error) bool {
		var req api.RememberArgs
		if err == nil {
			if line = bytes.TrimSpace(line); len(line) == 0 {
				return true
			}
			req, err = parseBatchLine(line, locate)
		}
		return fn(n, req, err)
	})
}

// parseBatchLine decodes one line of `gloss remember --batch`: exactly one
// JSON object of batchLine fields (unknown fields are ignored), in valid
// UTF-8, with a non-blank "text". locate turns the "at" path (relative to -C) and 1-based lines into
// the command's location.
func parseBatchLine(raw []byte, locate func(path string, first, last int) (api.Location, error)) (api.RememberArgs, error) {
	var req api.RememberArgs
	if !utf8.Valid(raw) {
		return req, fmt.Errorf("not valid UTF-8")
	}
	bl, err := decodeBatchLine(raw)
	if err != nil {
		return req, err
	}
	if strings.TrimSpace(bl.Text) == "" {
		// As `gloss remember ""`: an empty text would make a draft
		// (api.RememberArgs), meant for an editor that opens its file.
		return req, fmt.Errorf("missing \"text\": a batch line needs the memory's text")
	}
	req = api.RememberArgs{Text: bl.Text, Type: bl.Type, Title: bl.Title, Tags: bl.Tags, Symbol: bl.Symbol, Scope: bl.Scope}
	switch {
	case bl.At != "":
		p, s, e, err := parseLocation(bl.At)
		if err != nil {
			return req, err
		}
		if s == 0 {
			return req, fmt.Errorf("\"at\" needs lines: PATH:START[-END]")
		}
		req.Location, err = locate(p, s, e)
		return req, err
	}
	return req, nil // a symbol, or no place: gloss places it (api.RememberArgs)
}

// decodeBatchLine decodes raw, one line of a batch, into a batchLine:
// with github.com/segmentio/encoding/json (encoding/json's rules, about
// a third of the CPU: the lines are read on the batch's goroutine, 0.9
// CPU-s per 80,000 with encoding/json, docs/benchmarks.md), and, when
// that fails, with encoding/json again, whose error says what is wrong
// (the line's error as before; TestDecodeBatchLineAsStd).
func decodeBatchLine(raw []byte) (batchLine, error) {
	var bl batchLine
	if segjson.Unmarshal(raw, &bl) == nil {
		return bl, nil
	}
	bl = batchLine{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&bl); err != nil {
		return bl, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return bl, fmt.Errorf("more than one JSON value on the line (give one object per line)")
	}
	return bl, nil
}

// batchChunk is how many well-formed lines `gloss remember --batch` sends
// to a daemon per RememberBatch call: the batch is read, stored and
// printed chunk by chunk, so memory does not grow with it. The daemon
// stores each memory.RememberChunk of a call in one durable write and
// keeps the files it read and the paths it checked for the whole call:
// ten of those per call read each touched file once per 10,000 lines, not
// once per 1,000. Without a daemon the batch is one stream (streamBatch).
// A variable so that tests can send a few lines per call.
var batchChunk = 10 * memory.RememberChunk

// batchMemoryLimit is the smallest Go heap limit `gloss remember --batch`
// keeps (runtime/debug.SetMemoryLimit, a soft limit: the collector runs
// more often near it, nothing fails past it; batchLimit raises it with a
// larger live heap) unless $GOMEMLIMIT sets one: an
// ingest holds the files, records and token streams of the files it
// anchors in (about 120 MiB live on a 1,000-file repository), and the
// default collector pacing lets the heap grow to twice that. Every MiB
// under the limit is room the collector gives allocation between two
// cycles (about 25 MiB at 200 MiB, with 140 MiB live): at 215 MiB a
// +80,000 batch on prometheus took 8 % less CPU and peaked 16 MB
// higher, 289 MB; 210 MiB kept the peak of the batch and of its close
// under the 300 MB target until the batch became one stream, which
// peaked at 282–293 MiB, once 300.4 MB; 200 MiB: 271–272 MiB, for about
// 4 % more time (3 alternated pairs of +80,000; docs/benchmarks.md,
// session 18).
const batchMemoryLimit = 200 << 20

// setMemoryLimit sets the Go heap limit to limit bytes
// (runtime/debug.SetMemoryLimit) unless $GOMEMLIMIT sets one, and returns
// the function that restores the limit it replaced (a no-op when
// $GOMEMLIMIT is set). Used by `gloss index` (indexMemoryLimit), whose
// peak resident set has a target; `remember --batch` keeps batchLimit
// (boundBatchMemory).
func setMemoryLimit(limit int64) (restore func()) {
	if gomemlimitSet() {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}

// batchStoreCacheBytes is the Pebble block cache of `gloss remember
// --batch` without a daemon (8 MiB, Pebble's own default; the store's
// default is index.StoreCacheBytes, 64 MiB): the batch reads the file
// records of the paths it anchors in once per batch and writes the rest, so a larger cache only held blocks read once. Peak
// resident set of 20,000 lines on prometheus: 311–325 MiB with 64 MiB,
// 283 MiB with 8 MiB (docs/benchmarks.md, branch in9).
const batchStoreCacheBytes = 8 << 20

func runBatch(cmd *cobra.Command, g *globals, b *backend, file string) error {
	var r io.Reader
	if file == "-" {
		r = cmd.InOrStdin()
	} else {
		f, err := os.Open(g.resolvePath(file))
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	var sum batchSummary
	out := newResultWriter(cmd.OutOrStdout())
	print := func(lines []batchResult) { printBatch(cmd, g, out, lines, &sum) }
	locate := g.batchLocation()
	var err error
	if b.engine != nil {
		err = streamBatch(cmd.Context(), b.engine, r, batchSize(r), locate, print)
	} else {
		err = sendBatches(cmd.Context(), b, r, locate, print, out)
	}
	out.flush() // before the summary and any error
	writeMemProfile()
	if err != nil {
		if sum.ok+sum.failed > 0 {
			return fmt.Errorf("%w (after %d lines were processed: %d remembered, %d failed)", err, sum.ok+sum.failed, sum.ok, sum.failed)
		}
		return err
	}
	if !g.json {
		fmt.Fprintf(cmd.OutOrStdout(), "%d remembered, %d failed\n", sum.ok, sum.failed)
	}
	if sum.failed > 0 {
		return exitError{code: 1}
	}
	return nil
}

// sendBatches stores the lines of r through a daemon, batchChunk
// well-formed lines per RememberBatch call, and prints each call's lines
// in order with print when it returns. The lines of the next call are
// read and parsed while a call runs (one call ahead, so at most two
// calls' lines are held): the daemon handles one call at a time, and
// reading 10,000 lines between two calls left it idle for about a third
// of a second each time (docs/benchmarks.md, session 22). It returns the
// first error of a call or, once the calls before it have returned, of
// reading r; lines not sent by then are not printed.
func sendBatches(ctx context.Context, b *backend, r io.Reader, locate func(path string, first, last int) (api.Location, error), print func([]batchResult), out *resultWriter) error {
	calls := make(chan []batchResult) // unbuffered: one call read ahead
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(calls)
		var pending []batchResult
		valid := 0
		send := func() bool {
			select {
			case calls <- pending:
				pending, valid = nil, 0
				return true
			case <-stop:
				return false
			}
		}
		readErr = readBatchRequests(r, locate, func(n int, req api.RememberArgs, err error) bool {
			pending = append(pending, batchResult{line: n, req: req, err: err})
			if err == nil {
				valid++
			}
			if valid >= batchChunk || len(pending) >= 4*batchChunk {
				return send()
			}
			return true
		})
		if readErr == nil && len(pending) > 0 {
			send()
		}
	}()
	var sendErr error
	for lines := range calls {
		sendErr = sendBatch(ctx, b, lines, print)
		out.flush()
		if sendErr != nil {
			close(stop) // the reader ends at its next call, if r lets it
			return sendErr
		}
	}
	return readErr
}

// streamBatch stores the lines of r through the engine's RememberStream,
// read as the engine asks for them, and prints each line with print, in
// order, once the line's result is known: a malformed line when every
// line before it is printed, a stored one when its memory or error is
// reported. One stream covers the whole batch, so the engine sets up
// once and overlaps each chunk's index update with the next chunk's
// anchoring from start to end (docs/benchmarks.md, session 18). Lines
// read and not printed yet are at most the engine's window
// (api.StreamWindow) and chunk. size is the number of lines of r when
// known (batchSize), else 0. It returns the error of reading r (the lines
// read before it are stored and printed) or of the engine.
func streamBatch(ctx context.Context, e *api.Engine, r io.Reader, size int, locate func(path string, first, last int) (api.Location, error), print func([]batchResult)) error {
	var p streamPrinter
	var readErr error
	items := func(yield func(api.RememberArgs) bool) {
		stopped := false
		readErr = readBatchRequests(r, locate, func(n int, req api.RememberArgs, err error) bool {
			if stopped = stopped || ctx.Err() != nil; stopped {
				return false
			}
			if err != nil {
				p.add(batchResult{line: n, err: err}, false)
				p.advance(print)
				return true
			}
			p.add(batchResult{line: n}, true)
			stopped = !yield(req)
			return !stopped
		})
	}
	err := e.RememberStream(ctx, items, size, func(i int, it api.BatchItem) {
		l := p.item(i)
		l.set(it)
		l.done = true
		p.advance(print)
	})
	if err == nil {
		err = readErr
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return err
}

// streamPrinter holds the lines of a streamBatch from the first one not
// printed on (lines[head:], in order), and where each stream item not
// printed yet is among them (items[i-first] for item i of the stream).
// The printed lines at the front are dropped by moving the rest down once
// they are half of lines, so that lines is not reallocated as the
// stream goes (a batch of 80,000 allocated 120 MB so).
type streamPrinter struct {
	lines []batchResult
	head  int   // lines[:head] are printed
	items []int // absolute line positions (gone + index in lines)
	first int   // stream index of items[0]
	gone  int   // lines printed and dropped before lines[0]
}

// add appends a line read; item marks a well-formed one, the stream's
// next item.
func (p *streamPrinter) add(l batchResult, item bool) {
	l.done = !item
	if item {
		p.items = append(p.items, p.gone+len(p.lines))
	}
	p.lines = append(p.lines, l)
}

// item returns the line of stream item i, which is not printed yet.
func (p *streamPrinter) item(i int) *batchResult {
	return &p.lines[p.items[i-p.first]-p.gone]
}

// advance prints the answered lines from the first not printed on, up to
// the first line not answered yet.
func (p *streamPrinter) advance(print func([]batchResult)) {
	k := p.head
	for k < len(p.lines) && p.lines[k].done {
		k++
	}
	if k == p.head {
		return
	}
	print(p.lines[p.head:k])
	clear(p.lines[p.head:k])
	p.head = k
	d := 0 // items printed
	for d < len(p.items) && p.items[d] < p.gone+p.head {
		d++
	}
	p.items = p.items[d:] // append reallocates for the live ones only
	p.first += d
	if p.head >= len(p.lines)/2 {
		n := copy(p.lines, p.lines[p.head:])
		clear(p.lines[n:])
		p.lines = p.lines[:n]
		p.gone += p.head
		p.head = 0
	}
}

// batchSize returns the number of lines of r when r is a regular file
// (counted, then r is put back at its start), else 0.
func batchSize(r io.Reader) int {
	f, ok := r.(*os.File)
	if !ok {
		return 0
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return 0
	}
	n, last := 0, byte('\n')
	buf := make([]byte, 256<<10)
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err != nil {
			break
		}
	}
	if last != '\n' {
		n++
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0
	}
	return n
}

// sendBatch stores the well-formed lines of one chunk through a daemon
// (one RememberBatch call), records each one's memory or error in lines,
// and prints them in order with print, each line once, when the call
// returns. On an error of the call the lines are not printed.
func sendBatch(ctx context.Context, b *backend, lines []batchResult, print func([]batchResult)) error {
	var valid []api.RememberArgs
	var pos []int
	for i, l := range lines {
		if l.err == nil {
			valid = append(valid, l.req)
			pos = append(pos, i)
		}
	}
	if len(valid) == 0 {
		print(lines)
		return nil
	}
	res, err := b.RememberBatch(ctx, api.RememberBatchArgs{Items: valid})
	if err != nil {
		return err
	}
	for j, i := range pos {
		lines[i].set(res.Items[j])
	}
	print(lines)
	return nil
}

// batchResult is one line of a batch: its number, request, and memory or
// error.
type batchResult struct {
	line   int
	req    api.RememberArgs
	memory memory.View
	err    error
	done   bool // answered (streamPrinter)
}

// set records the engine's answer for the line: its memory or error.
func (l *batchResult) set(it api.BatchItem) {
	if it.Error != "" {
		l.err = errors.New(it.Error)
	} else if it.Memory != nil {
		l.memory = *it.Memory
	}
}

// batchSummary counts the lines of a batch remembered and failed so far.
type batchSummary struct{ ok, failed int }

// printBatch prints one result per line of a chunk (JSON lines with
// --json; errors go to standard error otherwise) and counts them in sum.
func printBatch(cmd *cobra.Command, g *globals, out *resultWriter, lines []batchResult, sum *batchSummary) {
	for _, l := range lines {
		if l.err != nil {
			sum.failed++
			if g.json {
				_ = out.enc.Encode(map[string]any{"error": l.err.Error(), "line": l.line})
			} else {
				out.flush() // the results before it first
				fmt.Fprintf(cmd.ErrOrStderr(), "line %d: %v\n", l.line, l.err)
			}
			continue
		}
		sum.ok++
		if g.json {
			out.view(&l.memory)
		} else {
			fmt.Fprintf(out.w, "%s  %s\n", l.memory.ID, termSafe(l.memory.Title, false))
		}
	}
	out.flushEvery(resultFlushInterval)
}

// resultWriter is the buffered standard output of `remember --batch`:
// results are written as the engine reports them (often one at a time),
// and the buffer reaches standard output when it is full, when
// resultFlushInterval has passed since it last did, after each call of
// the batch, and at the end: a write per result was 80,000 system calls
// for a batch of 80,000 (docs/benchmarks.md).
type resultWriter struct {
	w       *bufio.Writer
	enc     *json.Encoder // JSON lines into w, as printLine writes them
	buf     []byte        // view's encoding
	flushed time.Time
}

// resultFlushInterval bounds how long a result waits in the buffer for
// the next print (ms).
const resultFlushInterval = 200 * time.Millisecond

func newResultWriter(w io.Writer) *resultWriter {
	bw := bufio.NewWriterSize(w, 64<<10)
	return &resultWriter{w: bw, enc: json.NewEncoder(bw), flushed: time.Now()}
}

// view writes v as one JSON line, as r.enc.Encode(v) would
// (viewjson.AppendCompact: 0.61 CPU-s of a +80,000 batch's main goroutine
// went to encoding/json's reflection, docs/benchmarks.md, session 20); a
// view encoding/json cannot encode is not written, as Encode writes
// nothing then.
func (r *resultWriter) view(v *memory.View) {
	var err error
	if r.buf, err = viewjson.AppendCompact(r.buf[:0], v); err != nil {
		return
	}
	r.buf = append(r.buf, '\n')
	_, _ = r.w.Write(r.buf)
}

// flush writes the buffered results to standard output.
func (r *resultWriter) flush() {
	_ = r.w.Flush()
	r.flushed = time.Now()
}

// flushEvery flushes when results are buffered and d has passed since
// the last flush.
func (r *resultWriter) flushEvery(d time.Duration) {
	if r.w.Buffered() > 0 && time.Since(r.flushed) >= d {
		r.flush()
	}
}
