// Package mcp serves gloss over the Model Context Protocol: a thin door
// onto api.Interface, the one command surface the LSP server and the CLI
// also call, in the way gopls/internal/mcp serves gopls' command interface.
//
// Every tool converts agent-friendly input (a path relative to the
// workspace root, 1-based inclusive lines) into the api's LSP locations
// (file:// URI, 0-based end-exclusive range), calls one api method, and
// returns its typed result; api errors become tool errors (IsError
// results) with the api's message. Memories are also served as resources
// (gloss://memory/{id}, gloss://file/{+path}) and a "briefing" prompt.
// docs/mcp.md documents the tools and how to set up clients.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/api"
)

// Source is the memory source recorded on memories the remember tool
// stores (memory.RememberRequest.Source).
const Source = "agent"

// DefaultPoll is how often Watch polls the api's List for changed
// memories.
const DefaultPoll = 3 * time.Second

// Options configure New.
type Options struct {
	// Root is the absolute workspace root: relative tool paths are
	// resolved against it and no path may leave it.
	Root string
	// Version is gloss's version, reported as the server's version.
	Version string
	// Logger receives the SDK's log; nil discards it.
	Logger *slog.Logger
}

// Server is gloss's MCP server: the SDK server with gloss's tools,
// resources and prompt, bound to one api.Interface.
type Server struct {
	impl api.Interface
	root string
	srv  *sdk.Server
	res  *resources
}

// New returns the MCP server of the workspace at opts.Root, calling impl
// (an api.Engine in-process, or an api.Client of the workspace's daemon)
// for every tool, resource and prompt.
func New(impl api.Interface, opts Options) (*Server, error) {
	if opts.Root == "" || !filepath.IsAbs(opts.Root) {
		return nil, fmt.Errorf("mcp: the workspace root must be an absolute path, got %q", opts.Root)
	}
	root := filepath.Clean(opts.Root)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := &Server{impl: impl, root: root}
	s.res = newResources(s)
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "gloss", Title: "gloss: memories anchored to code", Version: version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       opts.Logger,
		// Resource subscriptions are tracked by the SDK; Watch sends the
		// updates.
		SubscribeHandler:   func(context.Context, *sdk.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
		Capabilities: &sdk.ServerCapabilities{
			Tools:     &sdk.ToolCapabilities{ListChanged: true},
			Resources: &sdk.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Prompts:   &sdk.PromptCapabilities{ListChanged: true},
		},
	})
	s.srv.AddReceivingMiddleware(s.res.middleware)
	s.addTools()
	s.res.add()
	s.addPrompts()
	return s, nil
}

// instructions are sent to clients at initialization: what gloss is and
// when to use it.
const instructions = `gloss keeps memories: short notes (gotchas, decisions, conventions) anchored to
code in this repository. Each memory is "stale" once the code it describes has
changed since it was written or verified.

Before editing a file, call memories_at (or context) for it and respect what the
memories say; stale ones may be out of date. When you learn something a future
reader of the code should know, call remember. After changing code, call check to
see which memories your change made stale, then verify (the memory still holds),
update (rewrite it) or forget it. Paths are relative to the workspace root; lines
are 1-based and inclusive.`

// SDK returns the underlying SDK server (to serve it over a transport or
// an HTTP handler).
func (s *Server) SDK() *sdk.Server { return s.srv }

// Root returns the workspace root the server serves.
func (s *Server) Root() string { return s.root }

// Run serves one session over t (such as &sdk.StdioTransport{}) until the
// client disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.srv.Run(ctx, t)
}

// resolve turns a tool's path (relative to the workspace root, or
// absolute inside it) into an absolute path, refusing paths that leave
// the workspace (.. escapes, absolute paths elsewhere, symlinks out).
func (s *Server) resolve(path string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", errors.New(`missing "path" (a file path relative to the workspace root)`)
	}
	p = strings.TrimPrefix(p, "file://")
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.root, filepath.FromSlash(p))
	}
	p = filepath.Clean(p)
	if !s.inside(p) {
		return "", fmt.Errorf("path %q is outside the workspace %s; give a path relative to the workspace root", path, s.root)
	}
	// A symlink inside the workspace may point out of it.
	if real, err := filepath.EvalSymlinks(p); err == nil && !s.inside(real) {
		return "", fmt.Errorf("path %q leads outside the workspace %s (symlink)", path, s.root)
	}
	return p, nil
}

// inside reports whether the clean absolute path p is the root or under it.
func (s *Server) inside(p string) bool {
	rel, err := filepath.Rel(s.root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// location returns the api.Location of path and the 1-based inclusive
// lines first..last (first 0: the whole file).
func (s *Server) location(path string, first, last int) (api.Location, error) {
	abs, err := s.resolve(path)
	if err != nil {
		return api.Location{}, err
	}
	loc := api.Location{URI: api.PathToURI(abs)}
	switch {
	case first < 0 || last < 0:
		return loc, fmt.Errorf("lines are 1-based: start_line %d, end_line %d", first, last)
	case first == 0 && last != 0:
		return loc, errors.New("end_line given without start_line")
	case first > 0:
		if last == 0 {
			last = first
		}
		if last < first {
			return loc, fmt.Errorf("end_line %d is before start_line %d", last, first)
		}
		loc.Range = api.LinesRange(first, last)
	}
	return loc, nil
}

// rel returns the workspace-relative slash path of an absolute path.
func (s *Server) rel(abs string) string {
	r, err := filepath.Rel(s.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

// toolError turns an api error into the message a model reads: the api's
// message without the wire command name prefix.
func toolError(err error) error {
	if err == nil {
		return nil
	}
	var ae *api.Error
	msg := err.Error()
	if errors.As(err, &ae) {
		msg = ae.Message
	}
	for {
		name, rest, ok := strings.Cut(msg, ": ")
		if !ok || !strings.HasPrefix(name, "gloss.") || strings.Contains(name, " ") {
			break
		}
		msg = rest // "gloss.remember: gloss.remember: ..." from a batch item
	}
	// The api speaks LSP ranges (0-based, end exclusive); tools speak
	// 1-based inclusive lines.
	msg = lspRange.ReplaceAllStringFunc(msg, func(r string) string {
		m := lspRange.FindStringSubmatch(r)
		sl, _ := strconv.Atoi(m[1])
		el, _ := strconv.Atoi(m[3])
		if m[4] == "0" && el > sl {
			el-- // ends at the start of a line
		}
		return fmt.Sprintf("lines %d-%d are", sl+1, el+1)
	})
	return errors.New(msg)
}

// lspRange matches an LSP range in an api message: "range 4:0-9:0 is".
var lspRange = regexp.MustCompile(`range (\d+):(\d+)-(\d+):(\d+) is`)

// exists reports whether the regular file p exists (used for friendlier
// errors than the api's read failures).
func exists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
