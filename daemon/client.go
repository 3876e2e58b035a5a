package daemon

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gloss-dev/gloss/memory"
)

// ErrNotRunning is returned (wrapped) by Dial when no daemon serves the
// workspace: no socket, or a stale one left by a daemon that died.
var ErrNotRunning = errors.New("no gloss daemon is running for this workspace")

// Conn is a connection to a daemon after the handshake.
type Conn struct {
	*net.UnixConn
	r *bufio.Reader
	// Hello is the daemon's handshake answer.
	Hello Hello
}

// Read reads from the connection (after the handshake line).
func (c *Conn) Read(p []byte) (int, error) { return c.r.Read(p) }

// Target names a workspace's daemon.
type Target struct {
	// Root is the workspace root (memory.FindRoot).
	Root string
	// Home is the data home; "" means memory.DataHome().
	Home string
	// Version is this client's gloss version, sent in the handshake.
	Version string
}

// paths returns the daemon files of t.
func (t Target) paths() (Paths, error) {
	home := t.Home
	if home == "" {
		var err error
		if home, err = memory.DataHome(); err != nil {
			return Paths{}, err
		}
	}
	return PathsFor(home, memory.ProjectID(t.Root))
}

// Dial connects to the daemon of t with the handshake verb (VerbLSP,
// VerbStatus or VerbStop). It returns an error wrapping ErrNotRunning when
// no daemon listens, ErrProtocol when the daemon speaks another protocol,
// and an error when the socket is not the user's.
func Dial(t Target, verb string) (*Conn, error) {
	p, err := t.paths()
	if err != nil {
		return nil, err
	}
	return dial(p, verb, t.Version)
}

func dial(p Paths, verb, version string) (*Conn, error) {
	if err := checkSocket(p.Socket); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w (no socket %s)", ErrNotRunning, p.Socket)
		}
		return nil, err
	}
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: p.Socket, Net: "unix"})
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w (stale socket %s)", ErrNotRunning, p.Socket)
		}
		return nil, fmt.Errorf("connect to the gloss daemon: %w", err)
	}
	_ = c.SetDeadline(time.Now().Add(handshakeTimeout))
	br := bufio.NewReader(c)
	h, err := clientHandshake(c, br, verb, Request{Version: version, PID: os.Getpid()})
	if err != nil {
		c.Close()
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	return &Conn{UnixConn: c, r: br, Hello: h}, nil
}

// StartOptions configure how Connect starts a daemon.
type StartOptions struct {
	// Executable is the gloss binary to run as `gloss daemon`; "" means
	// os.Executable().
	Executable string
	// Args are extra arguments after "daemon" (such as --idle-timeout).
	Args []string
	// Timeout bounds the wait for the new daemon's socket; 0 means 40 s
	// (opening a store waits up to index.LockWait for another process).
	Timeout time.Duration
}

// Connect dials the daemon of t, starting one when none runs: two clients
// starting at once take turns on the .start lock, so only one daemon is
// started and both connect to it. A daemon that exits before it listens
// is reported with the end of its log.
func Connect(ctx context.Context, t Target, verb string, so StartOptions) (*Conn, error) {
	p, err := t.paths()
	if err != nil {
		return nil, err
	}
	c, err := dial(p, verb, t.Version)
	if err == nil || !errors.Is(err, ErrNotRunning) {
		return c, err
	}
	timeout := so.Timeout
	if timeout == 0 {
		timeout = 40 * time.Second
	}
	deadline := time.Now().Add(timeout)
	unlock, err := lockFile(ctx, p.Start, deadline)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Another client may have started it while we waited for the lock.
	if c, err := dial(p, verb, t.Version); err == nil || !errors.Is(err, ErrNotRunning) {
		return c, err
	}
	exe := so.Executable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("start the gloss daemon: %w", err)
		}
	}
	logf, err := openRunFile(p.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("daemon log: %w", err)
	}
	logStart, _ := logf.Seek(0, io.SeekEnd)
	home := t.Home
	if home == "" {
		home, _ = memory.DataHome()
	}
	cmd := exec.Command(exe, append([]string{"-C", t.Root, "daemon"}, so.Args...)...)
	cmd.Dir = t.Root
	cmd.Env = append(os.Environ(), "GLOSS_HOME="+home)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own session: the daemon outlives this client and its terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start the gloss daemon: %w", err)
	}
	logf.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		c, err := dial(p, verb, t.Version)
		if err == nil || !errors.Is(err, ErrNotRunning) {
			return c, err
		}
		select {
		case werr := <-exited:
			// It may have lost a race to a daemon started by hand: try once
			// more before reporting its log.
			if c, err := dial(p, verb, t.Version); err == nil {
				return c, nil
			}
			return nil, fmt.Errorf("the gloss daemon exited before it listened (%v): %s", werr, logTail(p.Log, logStart))
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the gloss daemon (pid %d) did not listen on %s within %s; its log: %s", cmd.Process.Pid, p.Socket, timeout, logTail(p.Log, logStart))
		}
	}
}

// Stop asks the daemon of t to close its sessions and exit, and waits
// until it has released its lock. It returns the daemon's Hello, and
// ErrNotRunning (wrapped) when none runs.
func Stop(ctx context.Context, t Target) (Hello, error) {
	p, err := t.paths()
	if err != nil {
		return Hello{}, err
	}
	c, err := dial(p, VerbStop, t.Version)
	if err != nil {
		return Hello{}, err
	}
	h := c.Hello
	c.Close()
	unlock, err := lockFile(ctx, p.Lock, time.Now().Add(30*time.Second))
	if err != nil {
		return h, fmt.Errorf("the daemon (pid %d) did not exit: %w", h.PID, err)
	}
	unlock()
	return h, nil
}

// lockFile takes an exclusive flock on path, waiting until deadline.
func lockFile(ctx context.Context, path string, deadline time.Time) (func(), error) {
	f, err := openRunFile(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: still held by another process", path)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// logTail returns the daemon log written since offset (at most 2 KiB).
func logTail(path string, offset int64) string {
	data, err := os.ReadFile(path)
	if err != nil || int64(len(data)) < offset {
		return "(no log)"
	}
	data = bytes.TrimSpace(data[offset:])
	if len(data) > 2048 {
		data = data[len(data)-2048:]
	}
	if len(data) == 0 {
		return "(empty log)"
	}
	return strings.ReplaceAll(string(data), "\n", " | ")
}
