package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
)

// frameReader is the raw-frame read of jsonrpc2's header stream (an
// exported method of its unexported stream type).
type frameReader interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
}

// tolerantStream keeps a connection alive through a frame whose body is not
// a valid JSON-RPC message: it answers with a JSON-RPC parse error (id
// null, code -32700, as JSON-RPC 2.0 §5.1 requires) and reads on, where
// jsonrpc2's own stream would end the connection. Framing errors (a broken
// Content-Length header) still end it: the next frame boundary cannot be
// found. It deliberately does not expose ReadFrame, so the connection uses
// Read.
type tolerantStream struct {
	inner jsonrpc2.Stream
	raw   frameReader
}

func newTolerantStream(inner jsonrpc2.Stream) jsonrpc2.Stream {
	raw, ok := inner.(frameReader)
	if !ok {
		return inner
	}
	return &tolerantStream{inner: inner, raw: raw}
}

// Read implements jsonrpc2.Stream.
func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		frame, n, err := s.raw.ReadFrame(ctx)
		if err != nil {
			return nil, n, err
		}
		msg, err := jsonrpc2.DecodeMessage(frame)
		if err == nil {
			return msg, n, nil
		}
		resp := jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.NewError(jsonrpc2.ParseError, fmt.Sprintf("invalid JSON-RPC message: %v", err)))
		if _, werr := s.inner.Write(ctx, resp); werr != nil {
			return nil, 0, werr
		}
	}
}

// Write implements jsonrpc2.Stream.
func (s *tolerantStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.inner.Write(ctx, msg)
}

// Close implements jsonrpc2.Stream.
func (s *tolerantStream) Close() error { return s.inner.Close() }
