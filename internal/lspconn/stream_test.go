package lspconn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// bufRWC reads from in and collects what is written in out.
type bufRWC struct {
	in  io.Reader
	out bytes.Buffer
}

func (b *bufRWC) Read(p []byte) (int, error)  { return b.in.Read(p) }
func (b *bufRWC) Write(p []byte) (int, error) { return b.out.Write(p) }
func (b *bufRWC) Close() error                { return nil }

// zeros is an endless reader of '0' bytes: a body that is never held in
// memory.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// frame returns body with an LSP header.
func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// note returns a notification body for method.
func note(method string) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":{}}`
}

// replyErr is an error response the stream wrote.
type replyErr struct {
	code    jsonrpc2.Code
	message string
}

// readAll reads s until an error, at most limit messages, returning the
// methods of the requests and notifications read and the final error.
func readAll(t testing.TB, s jsonrpc2.Stream, limit int) ([]string, error) {
	var methods []string
	for range limit {
		msg, n, err := s.Read(context.Background())
		if err != nil {
			return methods, err
		}
		if n <= 0 {
			t.Fatalf("Read returned %d bytes with a message", n)
		}
		switch m := msg.(type) {
		case *jsonrpc2.Notification:
			methods = append(methods, m.Method())
		case *jsonrpc2.Call:
			methods = append(methods, m.Method())
		default:
			methods = append(methods, fmt.Sprintf("%T", msg))
		}
	}
	return methods, nil
}

// replies decodes what the stream wrote: it must be well-framed error
// responses with id null.
func replies(t testing.TB, out []byte) []replyErr {
	t.Helper()
	var got []replyErr
	s := NewStream(&bufRWC{in: bytes.NewReader(out)})
	for {
		msg, _, err := s.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatalf("stream wrote a bad frame (%v): %q", err, out)
		}
		r, ok := msg.(*jsonrpc2.Response)
		if !ok {
			t.Fatalf("stream wrote a %T, want an error response: %q", msg, out)
		}
		var je *jsonrpc2.Error
		if r.ID().IsValid() || !errors.As(r.Err(), &je) {
			t.Fatalf("stream wrote a response with id %v and error %v, want id null and an error: %q", r.ID(), r.Err(), out)
		}
		got = append(got, replyErr{je.Code, je.Message})
	}
}

// TestTolerantStream: each kind of good and bad input gives the messages,
// error responses and final error it should.
func TestTolerantStream(t *testing.T) {
	const (
		parseErr   = jsonrpc2.ParseError
		invalidReq = jsonrpc2.InvalidRequest
	)
	over := int64(MaxMessageSize) + 1
	nA := strconv.Itoa(len(note("a")))
	tests := []struct {
		name    string
		in      io.Reader
		methods []string        // messages read, in order
		err     error           // final Read error (errors.Is)
		replies []jsonrpc2.Code // error responses written, in order
		msg     string          // in the last reply's message
	}{
		{
			name: "empty input",
			in:   strings.NewReader(""),
			err:  io.EOF,
		},
		{
			name:    "two messages back to back",
			in:      strings.NewReader(frame(note("a")) + frame(note("b"))),
			methods: []string{"a", "b"},
			err:     io.EOF,
		},
		{
			name:    "call",
			in:      strings.NewReader(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)),
			methods: []string{"initialize"},
			err:     io.EOF,
		},
		{
			name:    "header names are case-insensitive",
			in:      strings.NewReader("content-length: " + nA + "\r\n\r\n" + note("a") + "CONTENT-LENGTH:" + nA + "\r\n\r\n" + note("b")),
			methods: []string{"a", "b"},
			err:     io.EOF,
		},
		{
			name: "Content-Type before and after is ignored",
			in: strings.NewReader("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: " + nA + "\r\n\r\n" + note("a") +
				"Content-Length: " + nA + "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + note("b")),
			methods: []string{"a", "b"},
			err:     io.EOF,
		},
		{
			name:    "bare LF line endings",
			in:      strings.NewReader("Content-Length: " + nA + "\n\n" + note("a")),
			methods: []string{"a"},
			err:     io.EOF,
		},
		{
			name:    "same Content-Length twice",
			in:      strings.NewReader("Content-Length: " + nA + "\r\nContent-Length: " + nA + "\r\n\r\n" + note("a")),
			methods: []string{"a"},
			err:     io.EOF,
		},
		{
			name:    "invalid JSON gets a parse error and reading goes on",
			in:      strings.NewReader(frame("{not json") + frame(note("initialized"))),
			methods: []string{"initialized"},
			err:     io.EOF,
			replies: []jsonrpc2.Code{parseErr},
			msg:     "invalid JSON-RPC message",
		},
		{
			name:    "empty body gets a parse error and reading goes on",
			in:      strings.NewReader("Content-Length: 0\r\n\r\n" + frame(note("a"))),
			methods: []string{"a"},
			err:     io.EOF,
			replies: []jsonrpc2.Code{parseErr},
		},
		{
			name:    "JSON that is not a message gets invalid request",
			in:      strings.NewReader(frame("[]") + frame(note("a"))),
			methods: []string{"a"},
			err:     io.EOF,
			replies: []jsonrpc2.Code{invalidReq},
		},
		{
			name:    "oversized body is skipped and answered, the next message is read",
			in:      io.MultiReader(strings.NewReader("Content-Length: "+strconv.FormatInt(over, 10)+"\r\n\r\n"), io.LimitReader(zeros{}, over), strings.NewReader(frame(note("after")))),
			methods: []string{"after"},
			err:     io.EOF,
			replies: []jsonrpc2.Code{invalidReq},
			msg:     fmt.Sprintf("message of %d bytes exceeds the 64 MiB limit", over),
		},
		{
			// Issue 17: skipping 10^12 bytes swallowed every later message.
			name:    "Content-Length beyond any skip ends the session",
			in:      strings.NewReader("Content-Length: 1000000000000\r\n\r\n" + frame(note("after"))),
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr},
			msg:     "Content-Length 1000000000000 is beyond the 1024 MiB any message may skip",
		},
		{
			name: "Content-Length within the limit without a body",
			in:   strings.NewReader("Content-Length: 60000000\r\n\r\n{}"),
			err:  io.ErrUnexpectedEOF,
		},
		{
			name:    "truncated body",
			in:      strings.NewReader(frame(note("a")) + "Content-Length: " + nA + "\r\n\r\n{\"jsonrpc\""),
			methods: []string{"a"},
			err:     io.ErrUnexpectedEOF,
		},
		{
			name: "truncated header",
			in:   strings.NewReader("Content-Length: 3"),
			err:  io.ErrUnexpectedEOF,
		},
		{
			name:    "missing Content-Length",
			in:      strings.NewReader("Content-Type: application/json\r\n\r\n" + note("a")),
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr},
			msg:     "missing Content-Length",
		},
		{
			name:    "negative Content-Length",
			in:      strings.NewReader("Content-Length: -1\r\n\r\n"),
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr},
			msg:     `Content-Length "-1" is not a non-negative decimal number`,
		},
		{
			name:    "garbage Content-Length",
			in:      strings.NewReader("Content-Length: 12abc\r\n\r\n"),
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr},
			msg:     `"12abc"`,
		},
		{
			name:    "empty Content-Length",
			in:      strings.NewReader("Content-Length:\r\n\r\n"),
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr},
		},
		{
			name:    "Content-Length beyond int64",
			in:      strings.NewReader("Content-Length: 100000000000000000000000000000\r\n\r\n"),
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr},
		},
		{
			name:    "conflicting Content-Length values",
			in:      strings.NewReader("Content-Length: " + nA + "\r\nContent-Length: 99\r\n\r\n" + note("a")),
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr},
			msg:     "conflicting",
		},
		{
			name:    "header line without colon",
			in:      strings.NewReader("garbage without header\r\n\r\n"),
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr},
			msg:     `header line "garbage without header" has no colon`,
		},
		{
			name:    "header section over 8 KiB",
			in:      io.MultiReader(strings.NewReader("Content-Length: 2\r\nX-Pad: "), io.LimitReader(zeros{}, 1<<30)),
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr},
			msg:     "header section exceeds 8192 bytes",
		},
		{
			name:    "bad message before a malformed header",
			in:      strings.NewReader(frame("nope") + frame(note("a")) + "Content-Length: x\r\n\r\n" + frame(note("b"))),
			methods: []string{"a"},
			err:     jsonrpc2.ErrInvalidHeader,
			replies: []jsonrpc2.Code{parseErr, parseErr},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rwc := &bufRWC{in: tt.in}
			s := NewStream(rwc)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			methods, err := readAll(t, s, 10)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Errorf("reading allocated %d bytes, want ≤ 4 MiB", alloc)
			}
			if fmt.Sprint(methods) != fmt.Sprint(tt.methods) {
				t.Errorf("read %v, want %v", methods, tt.methods)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("final error %v, want %v", err, tt.err)
			}
			got := replies(t, rwc.out.Bytes())
			var codes []jsonrpc2.Code
			for _, r := range got {
				codes = append(codes, r.code)
			}
			if fmt.Sprint(codes) != fmt.Sprint(tt.replies) {
				t.Errorf("error responses %v, want codes %v", got, tt.replies)
			}
			if tt.msg != "" && len(got) > 0 && !strings.Contains(got[len(got)-1].message, tt.msg) {
				t.Errorf("last error response %q, want it to contain %q", got[len(got)-1].message, tt.msg)
			}
		})
	}
}

// TestTolerantStreamWrite: concurrent writes come out as whole frames that
// read back as the messages written, with their sizes; a canceled context
// writes nothing.
func TestTolerantStreamWrite(t *testing.T) {
	// bufRWC.out is not safe for concurrent use: under -race this also
	// checks that the stream serializes Writes.
	rwc := &bufRWC{in: strings.NewReader("")}
	s := NewStream(rwc)
	const writers, each = 4, 50
	var total atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				n, err := s.Write(context.Background(), jsonrpc2.NewNotification(fmt.Sprintf("w%d/%d", w, i), jsonrpc2.RawMessage(`{"x":[1,2,3]}`)))
				if err != nil {
					t.Error(err)
					return
				}
				total.Add(n)
			}
		})
	}
	wg.Wait()
	if total.Load() != int64(rwc.out.Len()) {
		t.Errorf("Write reported %d bytes, %d written", total.Load(), rwc.out.Len())
	}
	methods, err := readAll(t, NewStream(&bufRWC{in: bytes.NewReader(rwc.out.Bytes())}), writers*each+1)
	if err != io.EOF || len(methods) != writers*each {
		t.Fatalf("read back %d messages and %v, want %d and EOF", len(methods), err, writers*each)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Write(ctx, jsonrpc2.NewNotification("late", nil)); !errors.Is(err, context.Canceled) {
		t.Errorf("Write with a canceled context: %v, want context.Canceled", err)
	}
}

// FuzzStream: any byte stream yields messages and ends with io.EOF,
// io.ErrUnexpectedEOF or a header error, never panics, and everything the
// stream writes back is a well-framed error response with id null; a
// header error is always answered.
func FuzzStream(f *testing.F) {
	nA := strconv.Itoa(len(note("a")))
	f.Add("")
	f.Add(frame("{not json"))
	f.Add(frame(note("initialized")))
	f.Add(frame(note("a")) + frame(note("b")))
	f.Add(frame("[]") + frame(note("a")))
	f.Add("Content-Length: 0\r\n\r\n")
	f.Add("Content-Length: -1\r\n\r\n")
	f.Add("Content-Length: 12abc\r\n\r\n")
	f.Add("Content-Length: 1000000000000000\r\n\r\n{}")
	f.Add("Content-Length: 67108865\r\n\r\n{}")
	f.Add("Content-Length: 100000000000000000000000000000\r\n\r\n")
	f.Add("Content-Length: " + nA + "\r\nContent-Length: 99\r\n\r\n" + note("a"))
	f.Add("content-length: " + nA + "\r\n\r\n" + note("a"))
	f.Add("Content-Type: application/json\r\n\r\n" + note("a"))
	f.Add("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: " + nA + "\r\n\r\n" + note("a"))
	f.Add("Content-Length: " + nA + "\n\n" + note("a"))
	f.Add("Content-Length: 3")
	f.Add("garbage without header")
	f.Add("garbage without header\r\n\r\n")
	f.Add("Content-Length: 2\r\nX-Pad: " + strings.Repeat("x", maxHeaderSize) + "\r\n\r\n{}")
	f.Fuzz(func(t *testing.T, in string) {
		rwc := &bufRWC{in: strings.NewReader(in)}
		_, err := readAll(t, NewStream(rwc), 100)
		got := replies(t, rwc.out.Bytes())
		switch {
		case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		case errors.Is(err, jsonrpc2.ErrInvalidHeader):
			if len(got) == 0 || got[len(got)-1].code != jsonrpc2.ParseError {
				t.Fatalf("header error %v not answered with a parse error: %v", err, got)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}
