package lsp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrMessageTooLarge is wrapped by ReadFrame's error for a body over
// MaxMessageSize (which it skips, so the next frame can be read).
var ErrMessageTooLarge = errors.New("LSP message too large")

// ReadFrame reads one LSP base-protocol frame from r and returns its body
// (the JSON text, not validated), with the header rules of the server's
// stream. A body over MaxMessageSize is discarded and reported with an
// error wrapping ErrMessageTooLarge. It returns io.EOF at the end of input
// between frames and an error wrapping jsonrpc2.ErrInvalidHeader for a
// malformed header.
func ReadFrame(r *bufio.Reader) ([]byte, error) {
	length, _, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	if length > MaxMessageSize {
		if _, err := io.CopyN(io.Discard, r, length); err != nil {
			return nil, unexpectedEOF(err)
		}
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrMessageTooLarge, length, MaxMessageSize)
	}
	return readBody(r, int(length))
}

// Frame returns body framed for the LSP base protocol:
// "Content-Length: N\r\n\r\n" followed by body.
func Frame(body []byte) []byte {
	out := make([]byte, 0, len(body)+32)
	out = append(out, "Content-Length: "...)
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, "\r\n\r\n"...)
	return append(out, body...)
}
