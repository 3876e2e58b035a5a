package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/lspconn"
)

// PeekInitialize reads the first LSP message of a session from in and
// returns it (the raw JSON body, to be sent on unchanged) and the
// directory of the session's workspace: its first workspace folder, else
// rootUri, else rootPath, else "" when the message is not an initialize
// request or names no folder. It fails on broken framing.
func PeekInitialize(in *bufio.Reader) (body []byte, dir string, err error) {
	body, err = lspconn.ReadFrame(in)
	if err != nil {
		return nil, "", err
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			RootURI          string `json:"rootUri"`
			RootPath         string `json:"rootPath"`
			WorkspaceFolders []struct {
				URI string `json:"uri"`
			} `json:"workspaceFolders"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "initialize" {
		return body, "", nil
	}
	uri := msg.Params.RootURI
	if len(msg.Params.WorkspaceFolders) > 0 {
		uri = msg.Params.WorkspaceFolders[0].URI
	}
	if uri != "" {
		if p, err := api.URIToPath(uri); err == nil {
			return body, p, nil
		}
	}
	return body, msg.Params.RootPath, nil
}

// Forward relays an LSP session between the editor (in, out) and the
// daemon connection c; first, when not nil, is a message already read from
// in (PeekInitialize) and is sent first. It returns when the editor closes
// in (after the daemon has answered what it was sent) or the daemon closes
// the connection, which is an error: the daemon died or was stopped, and
// the editor should restart the server.
func Forward(in io.Reader, out io.Writer, c *Conn, first []byte) error {
	if first != nil {
		if _, err := c.Write(lspconn.Frame(first)); err != nil {
			return fmt.Errorf("forward to the daemon: %w", err)
		}
	}
	// A side reader watches the editor's messages for exit, which makes
	// the daemon's closing of the session a normal end.
	pr, pw := io.Pipe()
	sawExit := make(chan struct{})
	go watchExit(pr, sawExit)
	fromEditor := make(chan error, 1)
	go func() {
		_, err := io.Copy(c, io.TeeReader(in, pw))
		pw.Close()
		// The editor is gone: let the daemon see EOF and end the session.
		_ = c.CloseWrite()
		fromEditor <- err
	}()
	_, err := io.Copy(out, c)
	select {
	case ferr := <-fromEditor:
		// The editor closed its side first: a normal end.
		if ferr != nil && !errors.Is(ferr, os.ErrClosed) && !errors.Is(ferr, net.ErrClosed) {
			return ferr
		}
		return nil
	case <-sawExit:
		return nil
	case <-time.After(200 * time.Millisecond):
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("the gloss daemon closed the session (pid %d): %w", c.Hello.PID, err)
}

// watchExit reads LSP messages from r and closes exit when one is the exit
// notification. It drains r to the end whatever it finds.
func watchExit(r io.Reader, exit chan<- struct{}) {
	defer io.Copy(io.Discard, r)
	br := bufio.NewReader(r)
	for {
		body, err := lspconn.ReadFrame(br)
		if err != nil && !errors.Is(err, lspconn.ErrMessageTooLarge) {
			return
		}
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method == "exit" {
			close(exit)
			return
		}
	}
}
