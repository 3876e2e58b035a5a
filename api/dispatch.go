package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Error codes, JSON-RPC's (JSON-RPC 2.0 §5.1), so that doors can pass them
// through unchanged.
const (
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeMethodNotFound = -32601
)

// Error is a command failure with a JSON-RPC error code.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

// invalid returns an *Error with CodeInvalidParams.
func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// Command is one entry of the command table: a wire name bound to an
// Interface method with its argument type A and result type R.
type Command interface {
	// Name is the wire name, e.g. "gloss.remember".
	Name() string
	// Verb is the CLI verb ("" when the command has none).
	Verb() string
	// Doc is a one-line description for generated CLI verbs.
	Doc() string
	// Writes reports whether the command changes the store.
	Writes() bool
	// NewArgs returns a pointer to a zero argument struct.
	NewArgs() any
	// Run calls the command's method of impl with *args (a pointer
	// returned by NewArgs) and returns its result.
	Run(ctx context.Context, impl Interface, args any) (any, error)
	// Dispatch decodes raw (one JSON object; may be empty for commands
	// without required arguments) and calls the method of impl.
	Dispatch(ctx context.Context, impl Interface, raw json.RawMessage) (any, error)
}

type info struct {
	verb, doc string
	writes    bool
	optional  bool // the argument may be omitted
}

// Def is a typed command-table entry: the method of Interface that
// implements the command named name.
type Def[A, R any] struct {
	name   string
	method func(Interface, context.Context, A) (R, error)
	info
}

func def[A, R any](name string, method func(Interface, context.Context, A) (R, error), i info) *Def[A, R] {
	return &Def[A, R]{name: name, method: method, info: i}
}

// Name implements Command.
func (d *Def[A, R]) Name() string { return d.name }

// Verb implements Command.
func (d *Def[A, R]) Verb() string { return d.verb }

// Doc implements Command.
func (d *Def[A, R]) Doc() string { return d.doc }

// Writes implements Command.
func (d *Def[A, R]) Writes() bool { return d.writes }

// NewArgs implements Command.
func (d *Def[A, R]) NewArgs() any { return new(A) }

// Run implements Command.
func (d *Def[A, R]) Run(ctx context.Context, impl Interface, args any) (any, error) {
	a, ok := args.(*A)
	if !ok {
		return nil, fmt.Errorf("%s: arguments of type %T, want %T", d.name, args, new(A))
	}
	return d.method(impl, ctx, *a)
}

// Call runs the command on impl with typed arguments.
func (d *Def[A, R]) Call(ctx context.Context, impl Interface, args A) (R, error) {
	return d.method(impl, ctx, args)
}

// Dispatch implements Command.
func (d *Def[A, R]) Dispatch(ctx context.Context, impl Interface, raw json.RawMessage) (any, error) {
	var a A
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		if !d.optional {
			return nil, invalid("%s needs one argument object", d.name)
		}
	case raw[0] != '{':
		return nil, invalid("%s: the argument must be a JSON object, got %s", d.name, truncate(string(raw), 40))
	default:
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, invalid("%s: bad argument: %v", d.name, err)
		}
	}
	return d.method(impl, ctx, a)
}

// Dispatch runs the command named name on impl with the JSON argument raw
// (the first element of executeCommand's arguments; nil when none). An
// unknown name gives an *Error with CodeInvalidParams listing the commands.
func Dispatch(ctx context.Context, impl Interface, name string, raw json.RawMessage) (any, error) {
	c := Lookup(name)
	if c == nil {
		return nil, invalid("unknown command %q (gloss serves %s)", name, strings.Join(Names(), ", "))
	}
	return c.Dispatch(ctx, impl, raw)
}

// Caller executes a command on a remote server: arg is encoded as the
// command's one argument and the result decoded into result. lspconn.Client
// (workspace/executeCommand over the daemon socket) implements it.
type Caller interface {
	Execute(ctx context.Context, command string, arg, result any) error
}

// Client implements Interface over a Caller: every method encodes its
// arguments, executes the command of the same table entry and decodes
// the result.
type Client struct{ Caller Caller }

func call[A, R any](ctx context.Context, c Client, d *Def[A, R], a A) (R, error) {
	var r R
	if c.Caller == nil {
		return r, errors.New("api.Client: no connection")
	}
	err := c.Caller.Execute(ctx, d.name, a, &r)
	return r, err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
