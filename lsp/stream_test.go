package lsp

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

type bufRWC struct {
	in  *strings.Reader
	out bytes.Buffer
}

func (b *bufRWC) Read(p []byte) (int, error)  { return b.in.Read(p) }
func (b *bufRWC) Write(p []byte) (int, error) { return b.out.Write(p) }
func (b *bufRWC) Close() error                { return nil }

// TestTolerantStream: a frame that is not JSON gets a parse error response
// (id null) and the next frame is still read.
func TestTolerantStream(t *testing.T) {
	frame := func(body string) string { return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body }
	rwc := &bufRWC{in: strings.NewReader(frame("{not json") + frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))}
	s := newTolerantStream(jsonrpc2.NewStream(rwc))
	msg, _, err := s.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := msg.(*jsonrpc2.Notification); !ok || n.Method() != "initialized" {
		t.Fatalf("read %T %v, want the initialized notification", msg, msg)
	}
	out := rwc.out.String()
	if !strings.Contains(out, `"code":-32700`) || !strings.Contains(out, `"id":null`) {
		t.Errorf("no parse error response with id null: %q", out)
	}
}

// FuzzStream: any byte stream either yields messages or ends with an
// error; it never panics, and a frame with a bad body never ends the
// stream by itself.
func FuzzStream(f *testing.F) {
	f.Add("Content-Length: 9\r\n\r\n{not json")
	f.Add("Content-Length: 52\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}")
	f.Add("Content-Length: -1\r\n\r\n")
	f.Add("garbage without header")
	f.Fuzz(func(t *testing.T, in string) {
		s := newTolerantStream(jsonrpc2.NewStream(&bufRWC{in: strings.NewReader(in)}))
		for i := 0; i < 100; i++ {
			if _, _, err := s.Read(context.Background()); err != nil {
				return
			}
		}
	})
}
