package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gloss-dev/gloss/internal/syncx"
	"github.com/gloss-dev/gloss/lsp"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/wspool"
)

// Config configures Run.
type Config struct {
	// Dir is a directory inside the workspace; the daemon serves the
	// workspace root found from it (memory.FindRoot).
	Dir string
	// Memory configures every workspace the daemon opens; Memory.Home ""
	// means memory.DataHome().
	Memory memory.Options
	// IdleTimeout ends the daemon after this long without sessions; 0
	// means never.
	IdleTimeout time.Duration
	// Version is the gloss version reported in the handshake.
	Version string
	// Log receives the daemon's log; nil means os.Stderr.
	Log io.Writer
	// Ready, when set, is called once the socket accepts connections.
	Ready func(Hello)
}

// ErrRunning is returned by Run when a daemon already serves the workspace.
var ErrRunning = errors.New("a gloss daemon already serves this workspace")

// Daemon is a running daemon (see Run).
type Daemon struct {
	cfg   Config
	paths Paths
	log   *log.Logger
	pool  *wspool.Pool
	ln    *net.UnixListener
	hello Hello
	lock  *os.File

	mu       sync.Mutex
	sessions map[net.Conn]struct{}
	idle     *time.Timer
	stopping bool
	done     chan struct{}
	wg       sync.WaitGroup
	cancel   context.CancelFunc // ends the warm-up check
	sock     os.FileInfo        // the socket file as created
}

// Run serves the workspace containing cfg.Dir until ctx ends, a client
// sends "stop", or no session has been connected for cfg.IdleTimeout. It
// returns ErrRunning (wrapped) when another daemon holds the workspace's
// lock, and the error of opening the store when that fails.
func Run(ctx context.Context, cfg Config) error {
	d, err := Start(cfg)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-d.done:
	}
	return d.Close()
}

// Start opens the workspace and starts listening; Close stops the daemon.
// See Run for the errors.
func Start(cfg Config) (*Daemon, error) {
	out := cfg.Log
	if out == nil {
		out = os.Stderr
	}
	logger := log.New(out, "gloss daemon: ", log.LstdFlags)
	root, err := memory.FindRoot(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if cfg.Memory.Home == "" {
		if cfg.Memory.Home, err = memory.DataHome(); err != nil {
			return nil, err
		}
	}
	if cfg.Memory.Warn == nil {
		cfg.Memory.Warn = func(err error) { logger.Printf("%v", err) }
	}
	project := memory.ProjectID(root)
	paths, err := PathsFor(cfg.Memory.Home, project)
	if err != nil {
		return nil, err
	}
	lock, err := lockDaemon(paths)
	if err != nil {
		return nil, err
	}
	pool, ln, sock, err := listen(cfg, root, paths)
	if err != nil {
		lock.Close()
		return nil, err
	}
	d := &Daemon{
		cfg: cfg, paths: paths, log: logger, pool: pool, ln: ln, lock: lock, sock: sock,
		sessions: map[net.Conn]struct{}{}, done: make(chan struct{}),
		hello: Hello{Protocol: Protocol, Version: cfg.Version, PID: os.Getpid(), Root: root, Project: project, Home: cfg.Memory.Home,
			Started: time.Now().UTC(), IdleTimeout: cfg.IdleTimeout.Seconds()},
	}
	d.run(root)
	logger.Printf("serving %s (project %s) on %s, pid %d", root, project, paths.Socket, os.Getpid())
	if cfg.Ready != nil {
		cfg.Ready(d.Hello())
	}
	return d, nil
}

// lockDaemon takes the daemon's lifetime lock and writes its pid there:
// the lock is held until the process ends, so a daemon killed with
// SIGKILL releases it and its socket is known stale. It fails with
// ErrRunning when another daemon holds it.
func lockDaemon(paths Paths) (*os.File, error) {
	lock, err := openRunFile(paths.Lock, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		pid, _ := os.ReadFile(paths.Lock)
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (pid %s, socket %s)", ErrRunning, string(pid), paths.Socket)
		}
		return nil, fmt.Errorf("daemon lock %s: %w", paths.Lock, err)
	}
	_ = lock.Truncate(0)
	_, _ = lock.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	return lock, nil
}

// listen opens the daemon's own workspace (held for its whole life: it
// holds the Pebble lock, and sessions find the store warm) and listens on
// its socket (mode 0600), replacing a stale one; a failure undoes what was
// set up. The caller holds the daemon lock.
func listen(cfg Config, root string, paths Paths) (*wspool.Pool, *net.UnixListener, os.FileInfo, error) {
	var undo []func()
	fail := func(err error) (*wspool.Pool, *net.UnixListener, os.FileInfo, error) {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
		return nil, nil, nil, err
	}
	pool := wspool.New(cfg.Memory)
	if err := pool.Open(root); err != nil {
		return fail(err)
	}
	undo = append(undo, func() { _ = pool.Close() })
	// A socket left by a dead daemon (we hold its lock now) is stale.
	if err := os.Remove(paths.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail(fmt.Errorf("remove stale socket: %w", err))
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: paths.Socket, Net: "unix"})
	if err != nil {
		return fail(fmt.Errorf("listen on %s: %w", paths.Socket, err))
	}
	ln.SetUnlinkOnClose(false) // removed by Close only while the lock is ours
	undo = append(undo, func() { ln.Close() })
	if err := os.Chmod(paths.Socket, 0o600); err != nil {
		return fail(err)
	}
	sock, err := os.Lstat(paths.Socket)
	if err != nil {
		return fail(err)
	}
	return pool, ln, sock, nil
}

// run starts the daemon's goroutines: the idle timer, the accept loop, the
// socket watcher, and the warm-up check of root in the background (the
// first session's check is then an incremental one; indexing garbage is
// returned to the OS after).
func (d *Daemon) run(root string) {
	warmCtx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	d.armIdle()
	d.wg.Add(1)
	go d.accept()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		if err := d.pool.Check(warmCtx, root); err != nil && warmCtx.Err() == nil {
			d.log.Printf("check %s: %v", root, err)
		}
		debug.FreeOSMemory()
	}()
	d.wg.Add(1)
	go d.watchSocket()
}

// Paths returns the daemon's files.
func (d *Daemon) Paths() Paths { return d.paths }

// Hello returns the daemon's current status.
func (d *Daemon) Hello() Hello {
	d.mu.Lock()
	h := d.hello
	h.Sessions = len(d.sessions)
	d.mu.Unlock()
	h.Workspaces = d.pool.Len()
	return h
}

// Done is closed when the daemon decides to stop (stop verb or idle).
func (d *Daemon) Done() <-chan struct{} { return d.done }

// armIdle (re)starts the idle timer when no session is connected. d.mu
// must not be held.
func (d *Daemon) armIdle() {
	if d.cfg.IdleTimeout <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.sessions) > 0 || d.stopping {
		return
	}
	if d.idle != nil {
		d.idle.Stop()
	}
	d.idle = time.AfterFunc(d.cfg.IdleTimeout, func() {
		d.mu.Lock()
		idle := len(d.sessions) == 0
		d.mu.Unlock()
		if idle {
			d.log.Printf("idle for %s: exiting", d.cfg.IdleTimeout)
			d.stop()
		}
	})
}

// stop makes Run return.
func (d *Daemon) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.stopping {
		d.stopping = true
		close(d.done)
	}
}

func (d *Daemon) accept() {
	defer d.wg.Done()
	for {
		c, err := d.ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			d.log.Printf("accept: %v", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		d.mu.Lock()
		if d.stopping {
			d.mu.Unlock()
			c.Close()
			continue
		}
		d.sessions[c] = struct{}{}
		if d.idle != nil {
			d.idle.Stop()
		}
		d.mu.Unlock()
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.serve(c)
			c.Close()
			d.mu.Lock()
			delete(d.sessions, c)
			d.mu.Unlock()
			d.armIdle()
		}()
	}
}

// serve runs one connection: peer check, handshake, then the session.
func (d *Daemon) serve(c *net.UnixConn) {
	if err := checkPeer(c); err != nil {
		d.log.Printf("refused a connection: %v", err)
		_ = writeLine(c, magic, strconv.Itoa(Protocol), "error", err.Error())
		return
	}
	_ = c.SetDeadline(time.Now().Add(handshakeTimeout))
	br := bufio.NewReader(c)
	line, err := readLine(br)
	if err != nil {
		d.log.Printf("handshake: %v", err)
		return
	}
	protocol, verb, rest, err := parseLine(line)
	if err == nil && protocol != Protocol {
		err = fmt.Errorf("this daemon (pid %d, gloss %s) speaks protocol %d, the client %d: stop it with `gloss daemon stop`", os.Getpid(), d.cfg.Version, Protocol, protocol)
	}
	var req Request
	if err == nil && rest != "" {
		if jerr := json.Unmarshal([]byte(rest), &req); jerr != nil {
			err = fmt.Errorf("bad handshake payload: %v", jerr)
		}
	}
	if err == nil && verb != VerbLSP && verb != VerbStatus && verb != VerbStop {
		err = fmt.Errorf("unknown handshake verb %q (want lsp, status or stop)", verb)
	}
	if err != nil {
		d.log.Printf("handshake: %v", err)
		_ = writeLine(c, magic, strconv.Itoa(Protocol), "error", err.Error())
		return
	}
	hello, _ := json.Marshal(d.Hello())
	if err := writeLine(c, magic, strconv.Itoa(Protocol), "ok", string(hello)); err != nil {
		return
	}
	_ = c.SetDeadline(time.Time{})
	switch verb {
	case VerbStatus:
		return
	case VerbStop:
		d.log.Printf("stop requested by pid %d", req.PID)
		d.stop()
		return
	}
	s := lsp.NewServer(lsp.Options{Memory: d.cfg.Memory, Log: d.log.Writer(), Version: d.cfg.Version, Pool: d.pool})
	start := time.Now()
	err = s.Serve(context.Background(), struct {
		io.Reader
		io.Writer
		io.Closer
	}{br, c, c})
	if err != nil {
		d.log.Printf("session of pid %d ended after %s: %v", req.PID, time.Since(start).Round(time.Millisecond), err)
	}
}

// socketCheck is how often the daemon checks that its socket file is
// still there.
const socketCheck = 2 * time.Second

// watchSocket stops the daemon when its socket file is removed or replaced
// (its directory deleted, say): no client could reach it any more, and a
// new daemon would then fail to open the store it holds.
func (d *Daemon) watchSocket() {
	defer d.wg.Done()
	t := time.NewTicker(socketCheck)
	defer t.Stop()
	for {
		select {
		case <-d.done:
			return
		case <-t.C:
		}
		if st, err := os.Lstat(d.paths.Socket); err != nil || !os.SameFile(d.sock, st) {
			d.log.Printf("socket %s was removed or replaced: exiting", d.paths.Socket)
			d.stop()
			return
		}
	}
}

// checkPeer refuses connections from other users (SO_PEERCRED).
func checkPeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		if errors.Is(cerr, syscall.ENOPROTOOPT) {
			return nil // not available here; the socket's mode 0600 still applies
		}
		return cerr
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("peer uid %d is not the daemon's uid %d", cred.Uid, os.Getuid())
	}
	return nil
}

// Close stops accepting, ends every session, closes the stores, removes
// the socket and releases the lock.
func (d *Daemon) Close() error {
	d.stop()
	d.cancel()
	// Parses end now, so sessions finish their background work and release
	// their workspaces in milliseconds (a SIGTERM stops the daemon at once).
	d.pool.Interrupt()
	d.mu.Lock()
	if d.idle != nil {
		d.idle.Stop()
	}
	conns := make([]net.Conn, 0, len(d.sessions))
	for c := range d.sessions {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	_ = d.ln.Close()
	if st, err := os.Lstat(d.paths.Socket); err == nil && os.SameFile(d.sock, st) {
		_ = os.Remove(d.paths.Socket)
	}
	for _, c := range conns {
		_ = c.Close()
	}
	if !syncx.WaitTimeout(&d.wg, 10*time.Second) {
		d.log.Printf("exiting with sessions still closing")
	}
	err := d.pool.Close()
	_ = unix.Flock(int(d.lock.Fd()), unix.LOCK_UN)
	d.lock.Close()
	d.log.Printf("stopped")
	return err
}
