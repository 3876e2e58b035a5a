package lspconn

import (
	"encoding/json"
	"io"

	"go.lsp.dev/jsonrpc2"
)

// Codec is the jsonrpc2 codec of gloss connections: payloads are encoded
// with encoding/json, whose omitempty and nil-slice rules gloss's
// hand-written LSP types are written for; raw messages pass unchanged.
type Codec struct{}

// Marshal implements jsonrpc2.Codec.
func (Codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return json.Marshal(v)
}

// Unmarshal implements jsonrpc2.Codec.
func (Codec) Unmarshal(data []byte, v any) error {
	switch p := v.(type) {
	case *json.RawMessage:
		*p = append(json.RawMessage(nil), data...)
		return nil
	case *jsonrpc2.RawMessage:
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return json.Unmarshal(data, v)
}

// NewConn returns a jsonrpc2 connection over rwc with LSP framing
// (NewStream) and Codec.
func NewConn(rwc io.ReadWriteCloser) jsonrpc2.Conn {
	return jsonrpc2.NewConn(NewStream(rwc), jsonrpc2.WithCodec(Codec{}))
}

// newClientConn is NewConn for a Client: it reads messages of up to
// MaxSkipSize (1 GiB), not MaxMessageSize. A client reads the responses
// of its own server, which may be larger than any request the server
// takes (gloss.list of 100,000 memories is about 70 MB): with the
// server's 64 MiB limit such a response was skipped, and the call waited
// for it forever (docs/benchmarks.md, session 20). A larger frame is a
// malformed header, which ends the connection and fails the call.
func newClientConn(rwc io.ReadWriteCloser) jsonrpc2.Conn {
	return jsonrpc2.NewConn(newStream(rwc, MaxSkipSize), jsonrpc2.WithCodec(Codec{}))
}
