package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// maxBatchLine is the longest line `gloss remember --batch` accepts, in
// bytes (16 MiB). A longer line is a per-line error; the batch goes on.
const maxBatchLine = 16 << 20

// readBatchLines calls fn for each line of r with its 1-based number and
// content (without the line end), or with an error for a line longer than
// max bytes, whose content is skipped without being held in memory. It
// returns read errors of r.
func readBatchLines(r io.Reader, max int, fn func(n int, line []byte, err error)) error {
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
			if tooLong || len(line) > max {
				fn(n, nil, fmt.Errorf("longer than the limit of %d bytes (16 MiB); skipped", max))
			} else {
				fn(n, line, nil)
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

// parseBatchLine decodes one line of `gloss remember --batch`: exactly one
// JSON object of batchLine fields (unknown fields are ignored), in valid
// UTF-8. locate turns the "at" path (relative to -C) and 1-based lines into
// the command's location.
func parseBatchLine(raw []byte, locate func(path string, first, last int) (api.Location, error)) (api.RememberArgs, error) {
	var req api.RememberArgs
	if !utf8.Valid(raw) {
		return req, fmt.Errorf("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var bl batchLine
	if err := dec.Decode(&bl); err != nil {
		return req, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, fmt.Errorf("more than one JSON value on the line (give one object per line)")
	}
	req = api.RememberArgs{Text: bl.Text, Type: bl.Type, Title: bl.Title, Tags: bl.Tags, Symbol: bl.Symbol, Scope: bl.Scope}
	switch {
	case bl.At != "":
		p, s, e, err := memory.ParseLocation(bl.At)
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
