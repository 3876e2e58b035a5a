package lspconn

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// A Client reads a response larger than MaxMessageSize (the largest
// request a server reads): the result of a call over 64 MiB reaches the
// caller instead of being skipped, which left the call waiting forever.
func TestClientReadsLargeResponse(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 64 MiB")
	}
	serverEnd, clientEnd := net.Pipe()
	big := strings.Repeat("x", MaxMessageSize+1024)
	server := NewConn(serverEnd)
	server.Go(context.Background(), func(context.Context, *jsonrpc2.Request) (any, error) {
		return big, nil
	})
	defer server.Close()
	c := NewClient(clientEnd, ClientOptions{})
	defer c.conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got json.RawMessage
	if err := c.Call(ctx, "gloss.list", nil, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(big)+2 {
		t.Fatalf("result of %d bytes, want %d", len(got), len(big)+2)
	}
}
