package lspconn

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
	body, _, err := readFrame(r, MaxMessageSize)
	return body, err
}

// MaxSkipSize is the largest Content-Length, in bytes, that is read and
// skipped as an oversized message (1 GiB); a larger length is a malformed
// header, which ends the session.
const MaxSkipSize = 1 << 30

// tooLargeError is readFrame's error for a body over its limit.
type tooLargeError struct{ length, limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%v: %d bytes, the limit is %d", ErrMessageTooLarge, e.length, e.limit)
}

func (e *tooLargeError) Unwrap() error { return ErrMessageTooLarge }

// readFrame reads one frame and returns its body and its size on the wire
// (header and body) in bytes; see ReadFrame for the errors (a malformed
// header is a *headerError, a body over limit bytes, skipped, a
// *tooLargeError).
func readFrame(r *bufio.Reader, limit int64) ([]byte, int64, error) {
	length, hdrLen, err := readHeader(r)
	if err != nil {
		return nil, 0, err
	}
	if length > MaxSkipSize {
		// No client sends this much: a broken or hostile length. Skipping
		// it would swallow every later message; end the session instead.
		return nil, 0, &headerError{fmt.Sprintf("Content-Length %d is beyond the %d MiB any message may skip", length, MaxSkipSize>>20)}
	}
	if length > limit {
		if _, err := io.CopyN(io.Discard, r, length); err != nil {
			return nil, 0, unexpectedEOF(err)
		}
		return nil, 0, &tooLargeError{length, limit}
	}
	body, err := readBody(r, int(length))
	if err != nil {
		return nil, 0, err
	}
	return body, hdrLen + length, nil
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
