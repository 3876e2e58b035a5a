package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/daemon"
	"github.com/gloss-dev/gloss/internal/lspconn"
	glossmcp "github.com/gloss-dev/gloss/mcp"
	"github.com/gloss-dev/gloss/memory"
)

func mcpCmd(g *globals) *cobra.Command {
	var (
		httpAddr    string
		allowRemote bool
		printConfig string
		poll        time.Duration
		idle        time.Duration
		verbose     bool
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the workspace's memories to AI agents over the Model Context Protocol",
		Long: `Run an MCP server for the workspace containing -C (default: the current
directory), on standard input and output (started by agents such as Claude Code,
Cursor, VS Code, Zed or Codex; see docs/mcp.md), or over streamable HTTP with
--http 127.0.0.1:PORT.

Its tools (remember, memories_at, memories_for_symbol, search, suggest_anchors,
show, check, verify, update, forget, impact, context) call the same commands as the editor
and the CLI, through the workspace's daemon, which is started when none runs, so
agents, editors and CLI calls share one store. --no-daemon opens the store in
this process instead. Memories are also resources (gloss://memory/{id},
gloss://file/{path}) and "briefing" is a prompt.

--print-config CLIENT prints the setup snippet of an MCP client (claude, cursor,
vscode, zed, codex) and exits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if printConfig != "" {
				return printMCPConfig(cmd, g, printConfig)
			}
			if httpAddr != "" {
				if err := glossmcp.CheckListenAddr(httpAddr, allowRemote); err != nil {
					return err
				}
			}
			defer boundServeMemory()()
			return runMCP(cmd, g, mcpRun{http: httpAddr, poll: poll, idle: idle, verbose: verbose})
		},
	}
	f := cmd.Flags()
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on this address (HOST:PORT, loopback only unless --allow-remote) instead of stdio")
	f.BoolVar(&allowRemote, "allow-remote", false, "allow --http on a non-loopback address (the server has no authentication)")
	f.StringVar(&printConfig, "print-config", "", "print the MCP setup snippet of a client ("+strings.Join(glossmcp.Clients(), ", ")+") and exit")
	f.DurationVar(&poll, "poll", glossmcp.DefaultPoll, "how often to look for changed memories to notify subscribed clients (negative: never)")
	f.DurationVar(&idle, "daemon-idle-timeout", defaultIdleTimeout, "idle timeout of a daemon this command starts (0: never)")
	f.BoolVar(&verbose, "verbose", false, "log MCP server activity to standard error")
	return cmd
}

// printMCPConfig prints the setup snippet of an MCP client (where it
// goes on stderr, the snippet on stdout).
func printMCPConfig(cmd *cobra.Command, g *globals, client string) error {
	dir := ""
	if g.dir != "." && g.dir != "" {
		abs, err := filepath.Abs(g.dir)
		if err != nil {
			return err
		}
		dir = abs
	}
	where, snippet, err := glossmcp.ClientConfig(client, "gloss", dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "# %s\n", where)
	fmt.Fprint(cmd.OutOrStdout(), snippet)
	return nil
}

// mcpRun are the flags of a `gloss mcp` server run.
type mcpRun struct {
	http       string
	poll, idle time.Duration
	verbose    bool
}

// runMCP serves the workspace of g.dir over stdio, or streamable HTTP on
// o.http, until the client goes or the command is cancelled.
func runMCP(cmd *cobra.Command, g *globals, o mcpRun) error {
	stderr := cmd.ErrOrStderr()
	root, err := memory.FindRoot(g.dir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	impl, closeImpl, err := mcpBackend(ctx, g, root, o.idle, stderr)
	if err != nil {
		return err
	}
	defer closeImpl()
	var logger *slog.Logger
	if o.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	s, err := glossmcp.New(impl, glossmcp.Options{Root: root, Version: version, Logger: logger})
	if err != nil {
		return err
	}
	warn := func(err error) { fmt.Fprintln(stderr, "gloss mcp: listing memories:", err) }
	if o.poll >= 0 {
		go s.Watch(ctx, o.poll, warn)
	} else if _, err := s.Sync(ctx); err != nil {
		warn(err)
	}
	if o.http != "" {
		return serveMCPHTTP(ctx, s, o.http, stderr)
	}
	in, out := cmd.InOrStdin(), cmd.OutOrStdout()
	err = s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// nopWriteCloser makes standard output an io.WriteCloser whose Close does
// nothing (the process owns it).
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpBackend returns the api.Interface the MCP server calls: the daemon of
// root (started when none runs), else, with --no-daemon or when the daemon
// cannot be reached, the engine over the store opened here.
func mcpBackend(ctx context.Context, g *globals, root string, idle time.Duration, stderr io.Writer) (api.Interface, func(), error) {
	if !g.noDaemon {
		dc := &daemonCaller{dial: func(ctx context.Context) (*lspconn.Client, error) {
			c, err := daemon.Connect(ctx, daemon.Target{Root: root, Version: version}, daemon.VerbLSP,
				daemon.StartOptions{Args: []string{"--idle-timeout", idle.String(), "--max-file-size", fmt.Sprint(g.maxSize)}})
			if err != nil {
				return nil, err
			}
			return initClient(ctx, c, root)
		}}
		if _, err := dc.client(ctx); err == nil {
			return api.Client{Caller: dc}, dc.close, nil
		} else {
			fmt.Fprintf(stderr, "gloss mcp: no daemon (%v); serving in-process\n", err)
		}
	}
	w, err := memory.Open(root, memory.Options{MaxFileSize: g.maxSize, Warn: func(err error) {
		fmt.Fprintln(stderr, "gloss: warning:", err)
	}})
	if err != nil {
		return nil, nil, err
	}
	return &api.Engine{Host: api.Single{W: w}, IndexFirst: true}, func() { w.Close() }, nil
}

// daemonCaller is an api.Caller over a session with the workspace's
// daemon that dials again when the session ended (the daemon was stopped
// or replaced by a newer gloss).
type daemonCaller struct {
	dial func(context.Context) (*lspconn.Client, error)
	mu   sync.Mutex
	cl   *lspconn.Client
}

// Execute implements api.Caller. A command that does not write is tried
// once more on a new session when the daemon went away during the call (a
// write is not: the daemon may have stored it before it went).
func (d *daemonCaller) Execute(ctx context.Context, command string, arg, result any) error {
	cl, err := d.client(ctx)
	if err != nil {
		return err
	}
	err = cl.Execute(ctx, command, arg, result)
	if err == nil || ctx.Err() != nil {
		return err
	}
	// lspconn.Client returns the server's error answers unwrapped and
	// transport failures wrapped.
	if c := api.Lookup(command); c == nil || c.Writes() || errors.Unwrap(err) == nil {
		return err
	}
	select {
	case <-cl.Done():
	case <-time.After(time.Second):
		return err // the session is alive
	}
	if cl, err = d.client(ctx); err != nil {
		return err
	}
	return cl.Execute(ctx, command, arg, result)
}

// client returns the live session, dialing (and starting the daemon) when
// there is none.
func (d *daemonCaller) client(ctx context.Context) (*lspconn.Client, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cl != nil {
		select {
		case <-d.cl.Done():
			d.cl = nil
		default:
			return d.cl, nil
		}
	}
	cl, err := d.dial(ctx)
	if err != nil {
		return nil, err
	}
	d.cl = cl
	return cl, nil
}

func (d *daemonCaller) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cl != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = d.cl.Close(ctx)
		d.cl = nil
	}
}

// serveMCPHTTP serves s over streamable HTTP on addr until ctx is done.
func serveMCPHTTP(ctx context.Context, s *glossmcp.Server, addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.SDK() }, nil)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(stderr, "gloss mcp: serving %s over streamable HTTP at http://%s/\n", s.Root(), ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
