package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Protocol is the version of the daemon protocol: the handshake below and
// the language-server session that follows it (LSP plus the gloss.*
// commands of docs/commands.md). A client and a daemon of different
// protocols refuse each other; `gloss daemon stop` ends an old daemon.
const Protocol = 1

// Handshake, the first line each way on a new connection (UTF-8, at most
// maxHandshake bytes, ending in "\n"):
//
//	client: gloss-daemon <protocol> <verb> <JSON Request>
//	daemon: gloss-daemon <protocol> ok <JSON Hello>
//	    or: gloss-daemon <protocol> error <message>
//
// verb is "lsp" (an LSP session with Content-Length framing follows),
// "status" (the daemon answers and closes) or "stop" (the daemon answers,
// then closes every session and exits).
const (
	magic        = "gloss-daemon"
	maxHandshake = 64 << 10
	// handshakeTimeout bounds each side's wait for the other's line.
	handshakeTimeout = 10 * time.Second
)

// Verbs of the handshake.
const (
	VerbLSP    = "lsp"
	VerbStatus = "status"
	VerbStop   = "stop"
)

// Request is the client's handshake payload.
type Request struct {
	// Version is the client's gloss version (informational).
	Version string `json:"version"`
	// PID is the client's process id (informational, for the log).
	PID int `json:"pid"`
}

// Hello is the daemon's handshake payload and the answer to "status".
type Hello struct {
	Protocol int    `json:"protocol"`
	Version  string `json:"version"`
	PID      int    `json:"pid"`
	// Root is the workspace root the daemon was started for; Project its
	// project id; Home the data home.
	Root    string `json:"root"`
	Project string `json:"project"`
	Home    string `json:"home"`
	// Started is when the daemon started listening.
	Started time.Time `json:"started"`
	// Sessions is the number of connected sessions (this one included).
	Sessions int `json:"sessions"`
	// Workspaces is the number of open stores.
	Workspaces int `json:"workspaces"`
	// IdleTimeout is the daemon's idle timeout in seconds (0: never).
	IdleTimeout float64 `json:"idle_timeout_s"`
}

// ErrProtocol is wrapped by handshake errors caused by a daemon or client
// of another protocol version.
var ErrProtocol = errors.New("gloss daemon protocol mismatch")

func writeLine(w io.Writer, fields ...string) error {
	_, err := io.WriteString(w, strings.Join(fields, " ")+"\n")
	return err
}

// readLine reads one handshake line of at most maxHandshake bytes.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		frag, err := r.ReadSlice('\n')
		b.Write(frag)
		if b.Len() > maxHandshake {
			return "", fmt.Errorf("handshake line longer than %d bytes", maxHandshake)
		}
		if err == nil {
			return strings.TrimSuffix(b.String(), "\n"), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) && b.Len() > 0 {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
	}
}

// parseLine splits "gloss-daemon <protocol> <word> <rest>".
func parseLine(line string) (protocol int, word, rest string, err error) {
	parts := strings.SplitN(line, " ", 4)
	if len(parts) < 3 || parts[0] != magic {
		return 0, "", "", fmt.Errorf("not a gloss daemon handshake: %q", truncate(line, 60))
	}
	protocol, err = strconv.Atoi(parts[1])
	if err != nil {
		return 0, "", "", fmt.Errorf("bad protocol version in handshake %q", truncate(line, 60))
	}
	if len(parts) == 4 {
		rest = parts[3]
	}
	return protocol, parts[2], rest, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// clientHandshake sends verb and reads the daemon's Hello.
func clientHandshake(rw io.ReadWriter, br *bufio.Reader, verb string, req Request) (Hello, error) {
	payload, _ := json.Marshal(req)
	if err := writeLine(rw, magic, strconv.Itoa(Protocol), verb, string(payload)); err != nil {
		return Hello{}, fmt.Errorf("daemon handshake: %w", err)
	}
	line, err := readLine(br)
	if err != nil {
		return Hello{}, fmt.Errorf("daemon handshake: %w", err)
	}
	protocol, word, rest, err := parseLine(line)
	if err != nil {
		return Hello{}, err
	}
	if word == "error" {
		if protocol != Protocol {
			return Hello{}, fmt.Errorf("%w: %s", ErrProtocol, rest)
		}
		return Hello{}, fmt.Errorf("gloss daemon: %s", rest)
	}
	if word != "ok" {
		return Hello{}, fmt.Errorf("daemon handshake: unexpected answer %q", truncate(line, 60))
	}
	var h Hello
	if err := json.Unmarshal([]byte(rest), &h); err != nil {
		return Hello{}, fmt.Errorf("daemon handshake: bad hello: %w", err)
	}
	if protocol != Protocol {
		return h, fmt.Errorf("%w: the daemon (pid %d, gloss %s) speaks protocol %d, this gloss %d: stop it with `gloss daemon stop`", ErrProtocol, h.PID, h.Version, protocol, Protocol)
	}
	return h, nil
}
