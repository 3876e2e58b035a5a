// Package lspconn is the transport of gloss's LSP connections: the base
// protocol framing (LSP 3.17 "Base Protocol": Content-Length headers),
// tolerant of clients that bend it, the JSON codec, and a minimal client
// that the CLI and tests use to talk to a gloss server.
package lspconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/gloss-dev/gloss/api"
	"go.lsp.dev/jsonrpc2"
)

// Client is a minimal LSP client of a gloss server: what the CLI uses to
// run verbs through the daemon, and what tests use to drive sessions. It
// answers the server's requests (code lens refresh, progress, watcher
// registration, showDocument) with an empty result.
type Client struct {
	conn jsonrpc2.Conn
}

// ClientOptions configure NewClient.
type ClientOptions struct {
	// OnNotification, when set, is called (on the connection's read loop,
	// in order) with each notification from the server, such as
	// textDocument/publishDiagnostics.
	OnNotification func(method string, params json.RawMessage)
	// OnRequest, when set, is called with each request from the server
	// (such as workspace/codeLens/refresh) before it is answered.
	OnRequest func(method string, params json.RawMessage)
}

// NewClient starts a client on rwc (LSP Content-Length framing; messages
// of up to MaxSkipSize, newClientConn).
func NewClient(rwc io.ReadWriteCloser, opts ClientOptions) *Client {
	c := &Client{}
	c.conn = newClientConn(rwc)
	c.conn.Go(context.Background(), func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			if opts.OnRequest != nil {
				opts.OnRequest(req.Method(), json.RawMessage(req.Params()))
			}
			return nil, nil
		}
		if opts.OnNotification != nil {
			opts.OnNotification(req.Method(), json.RawMessage(req.Params()))
		}
		return nil, nil
	})
	return c
}

// Initialize sends initialize for the workspace folder root (an absolute
// directory) with the capabilities gloss uses, then initialized.
// initialCheck false asks the server not to check the folder after
// initialized and not to watch its files (a one-call client: the CLI
// through the daemon, a benchmark's session; see
// initializeParams.InitializationOptions in package lsp).
func (c *Client) Initialize(ctx context.Context, root string, initialCheck bool) error {
	uri := api.PathToURI(root)
	params := map[string]any{
		"processId": nil, "rootUri": uri,
		"workspaceFolders": []map[string]string{{"uri": uri, "name": filepath.Base(root)}},
		"capabilities": map[string]any{
			"workspace": map[string]any{"codeLens": map[string]any{"refreshSupport": true}},
			"general":   map[string]any{"positionEncodings": []string{"utf-16"}},
		},
		"initializationOptions": map[string]any{"initialCheck": initialCheck, "watchFiles": initialCheck},
	}
	if err := c.Call(ctx, "initialize", params, nil); err != nil {
		return err
	}
	return c.conn.Notify(ctx, "initialized", map[string]any{})
}

// Call sends a request and decodes its result into result (when not nil).
// A JSON-RPC error response is returned as an error carrying its message.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	_, err := c.conn.Call(ctx, method, params, &raw)
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) {
			return errors.New(rpcErr.Message)
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	if result != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("%s: bad result: %w", method, err)
		}
	}
	return nil
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// Execute runs workspace/executeCommand with one argument object (nil for
// none) and decodes the result into result (when not nil).
func (c *Client) Execute(ctx context.Context, command string, arg, result any) error {
	params := map[string]any{"command": command, "arguments": []any{}}
	if arg != nil {
		params["arguments"] = []any{arg}
	}
	return c.Call(ctx, "workspace/executeCommand", params, result)
}

// Done is closed when the connection ends.
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }

// Close sends shutdown and exit and closes the connection.
func (c *Client) Close(ctx context.Context) error {
	err := c.Call(ctx, "shutdown", nil, nil)
	if nerr := c.conn.Notify(ctx, "exit", nil); err == nil {
		err = nerr
	}
	if cerr := c.conn.Close(); err == nil {
		err = cerr
	}
	return err
}
