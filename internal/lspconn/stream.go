package lspconn

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// MaxMessageSize is the largest message body, in bytes, the server accepts
// (64 MiB). A frame whose Content-Length is larger is skipped without being
// buffered and answered with a JSON-RPC InvalidRequest error (code -32600,
// id null); the connection stays up.
const MaxMessageSize = 64 << 20

// maxHeaderSize caps the header section of a frame, in bytes, including its
// terminating blank line. Real headers are a few dozen bytes.
const maxHeaderSize = 8 << 10

// bodyChunk is the most a body buffer grows ahead of the bytes actually
// received, so a Content-Length within MaxMessageSize but without the bytes
// to match costs at most this much memory up front.
const bodyChunk = 1 << 20

// tolerantStream is the server's jsonrpc2.Stream: LSP base-protocol framing
// (header fields, a blank line, then Content-Length bytes of JSON) that keeps
// the connection alive through a bad message where it can:
//
//   - a body that is not a JSON-RPC message is answered with an error
//     response (id null; -32700 parse error for invalid JSON, -32600 for
//     valid JSON that is not a message, as JSON-RPC 2.0 §5.1 requires) and
//     the next frame is read;
//   - a body over MaxMessageSize is read and discarded without being
//     buffered, answered with a -32600 error, and the next frame is read;
//   - a malformed header section (no Content-Length, a length that is not a
//     decimal number, a field without a colon, more than 8 KiB of header) is
//     answered with a -32700 error naming the problem, and Read returns an
//     error wrapping jsonrpc2.ErrInvalidHeader: the next frame boundary
//     cannot be found, so the connection ends.
//
// Header field names are case-insensitive, fields other than Content-Length
// (Content-Type) are ignored, and a bare "\n" line ending is accepted as
// well as "\r\n". Read is called from one goroutine; Write is safe for
// concurrent use and writes each frame with a single Write call.
//
// It does not implement jsonrpc2's raw-frame extension, so the connection
// reads through Read (and batches are answered with -32600).
type tolerantStream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader
	// limit is the largest message body read, in bytes (MaxMessageSize
	// for a server; MaxSkipSize for a Client).
	limit int64

	wmu sync.Mutex // serializes Write
}

// NewStream returns a jsonrpc2.Stream with LSP framing over rwc (see
// tolerantStream); closing the stream closes rwc.
func NewStream(rwc io.ReadWriteCloser) jsonrpc2.Stream {
	return newStream(rwc, MaxMessageSize)
}

// newStream is NewStream with limit bytes as the largest message body it
// reads (larger ones are skipped and answered with an error).
func newStream(rwc io.ReadWriteCloser, limit int64) jsonrpc2.Stream {
	return &tolerantStream{rwc: rwc, in: bufio.NewReader(rwc), limit: limit}
}

// Read implements jsonrpc2.Stream: it returns the next JSON-RPC message and
// the number of bytes its frame took on the wire. It returns io.EOF when the
// peer closes between frames, io.ErrUnexpectedEOF when it closes inside one,
// an error wrapping jsonrpc2.ErrInvalidHeader for a malformed header
// section, and the error of writing an error response if that fails.
func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, size, err := readFrame(s.in, s.limit)
		var bad *headerError
		var large *tooLargeError
		switch {
		case errors.As(err, &large):
			msg := fmt.Sprintf("message of %d bytes exceeds the %d MiB limit", large.length, large.limit>>20)
			if err := s.replyError(ctx, jsonrpc2.InvalidRequest, msg); err != nil {
				return nil, 0, err
			}
			continue
		case errors.As(err, &bad):
			if werr := s.replyError(ctx, jsonrpc2.ParseError, "invalid message header: "+bad.what); werr != nil {
				return nil, 0, werr
			}
			return nil, 0, err
		case err != nil:
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, size, nil
		}
		if isResponse(body) {
			// A response (such as the peer's own id-null error response)
			// is never answered: two tolerant peers would otherwise
			// answer each other's errors forever. It is dropped.
			continue
		}
		code := jsonrpc2.ParseError
		var je *jsonrpc2.Error
		if errors.As(err, &je) && je.Code == jsonrpc2.InvalidRequest {
			code = jsonrpc2.InvalidRequest
		}
		if werr := s.replyError(ctx, code, fmt.Sprintf("invalid JSON-RPC message: %v", err)); werr != nil {
			return nil, 0, werr
		}
	}
}

// replyError writes an error response with id null, used for a message
// whose id cannot be known.
func (s *tolerantStream) replyError(ctx context.Context, code jsonrpc2.Code, msg string) error {
	_, err := s.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.NewError(code, msg)))
	return err
}

// Write implements jsonrpc2.Stream: it writes msg as one frame
// ("Content-Length: N\r\n\r\n" and N bytes of JSON) with a single Write on
// the connection and returns the frame's size in bytes. It returns ctx's
// error without writing when ctx is done, else the connection's write
// error.
func (s *tolerantStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, err
	}
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n, err := s.rwc.Write(frame)
	return int64(n), err
}

// Close implements jsonrpc2.Stream: it closes the connection and returns
// its error.
func (s *tolerantStream) Close() error { return s.rwc.Close() }

// headerError is a malformed header section; what says how.
type headerError struct{ what string }

func (e *headerError) Error() string { return jsonrpc2.ErrInvalidHeader.Error() + ": " + e.what }

func (e *headerError) Unwrap() error { return jsonrpc2.ErrInvalidHeader }

// readHeader reads a frame's header section and returns its Content-Length
// (≥ 0, possibly above MaxMessageSize) and its size in bytes including the
// blank line. It returns io.EOF when r ends before the first byte,
// io.ErrUnexpectedEOF when it ends inside the section, a *headerError when
// the section is malformed, or r's error.
func readHeader(r *bufio.Reader) (length, size int64, err error) {
	length = -1
	var line []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			if err == io.EOF && size == 0 {
				return 0, 0, io.EOF
			}
			return 0, 0, unexpectedEOF(err)
		}
		size++
		if size > maxHeaderSize {
			return 0, 0, &headerError{fmt.Sprintf("header section exceeds %d bytes", maxHeaderSize)}
		}
		if c != '\n' {
			line = append(line, c)
			continue
		}
		text := strings.TrimSuffix(string(line), "\r")
		line = line[:0]
		if text == "" {
			break
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return 0, 0, &headerError{fmt.Sprintf("header line %q has no colon", truncate(text, 40))}
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // Content-Type and unknown fields
		}
		value = strings.TrimSpace(value)
		n, err := parseLength(value)
		if err != nil {
			return 0, 0, err
		}
		if length >= 0 && n != length {
			return 0, 0, &headerError{fmt.Sprintf("conflicting Content-Length values %d and %d", length, n)}
		}
		length = n
	}
	if length < 0 {
		return 0, 0, &headerError{"missing Content-Length"}
	}
	return length, size, nil
}

// parseLength parses a Content-Length value: decimal digits only, at most
// 2⁶³-1.
func parseLength(value string) (int64, error) {
	bad := &headerError{fmt.Sprintf("Content-Length %q is not a non-negative decimal number", truncate(value, 40))}
	if value == "" {
		return 0, bad
	}
	for i := 0; i < len(value); i++ {
		if value[i] < '0' || value[i] > '9' {
			return 0, bad
		}
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return 0, bad
	}
	return n, nil
}

// readBody reads exactly n bytes from r into a fresh slice (the message
// keeps it; DecodeMessage does not copy). The slice grows as bytes arrive,
// at most bodyChunk ahead of them. It returns io.ErrUnexpectedEOF when r
// ends early.
func readBody(r io.Reader, n int) ([]byte, error) {
	body := make([]byte, 0, min(n, bodyChunk))
	for len(body) < n {
		if len(body) == cap(body) {
			grown := make([]byte, len(body), min(n, len(body)+max(len(body), bodyChunk)))
			copy(grown, body)
			body = grown
		}
		m, err := io.ReadFull(r, body[len(body):cap(body)])
		body = body[:len(body)+m]
		if err != nil {
			return nil, unexpectedEOF(err)
		}
	}
	return body, nil
}

// unexpectedEOF turns io.EOF, which inside a frame means truncation, into
// io.ErrUnexpectedEOF.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// isResponse reports whether body is a JSON object with "result" or
// "error" and no "method": a JSON-RPC response, possibly an invalid one.
func isResponse(body []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, method := m["method"]
	_, result := m["result"]
	_, errField := m["error"]
	return !method && (result || errField)
}

// truncate cuts s to n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
