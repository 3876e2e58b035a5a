// Package viewjson encodes memory views (memory.View) as JSON without
// reflection, byte for byte as encoding/json's MarshalIndent would: the
// output path of commands that print many memories (`gloss check --json`
// at 100,000 memories, issue #12).
package viewjson

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/gloss-dev/gloss/internal/jsonenc"
	"github.com/gloss-dev/gloss/memory"
)

// Append appends v encoded as json.MarshalIndent(v, prefix, indent)
// encodes it, byte for byte, without reflection: `gloss check
// --json` prints 100,000 memories with it (issue #12), where
// encoding/json's reflection and indentation cost seconds. Strings that
// need escaping (quotes, control characters, HTML characters, non-ASCII)
// are encoded by encoding/json itself; a view with NearDuplicates (a
// remember result, floats), relations, a decision or a confidence
// encoding/json writes in exponent form is encoded by json.MarshalIndent. It fails
// only where encoding/json would (a time outside years 0–9999).
func Append(dst []byte, v *memory.View, prefix, indent string) ([]byte, error) {
	if !fast(v) {
		data, err := json.MarshalIndent(v, prefix, indent)
		return append(dst, data...), err
	}
	return appendView(viewEncoder{b: dst, prefix: prefix, indent: indent}, v, dst)
}

// AppendCompact appends v encoded as json.Marshal(v) encodes it (one
// line, no spaces), byte for byte, as Append does for
// json.MarshalIndent: the result lines of `gloss remember --batch --json`
// (80,000 of them per +80,000 batch: 0.61 CPU-s with encoding/json,
// docs/benchmarks.md, session 20). The views Append hands to
// encoding/json go to json.Marshal.
func AppendCompact(dst []byte, v *memory.View) ([]byte, error) {
	if !fast(v) {
		data, err := json.Marshal(v)
		return append(dst, data...), err
	}
	return appendView(viewEncoder{b: dst, compact: true}, v, dst)
}

// fast reports whether v has only what appendView writes itself.
func fast(v *memory.View) bool {
	return len(v.NearDuplicates) == 0 && len(v.Relations) == 0 && len(v.SupersededBy) == 0 && v.Decision == nil && jsonenc.PlainFloat(v.Confidence)
}

// appendView writes v with e (on dst), or returns dst and the error.
func appendView(e viewEncoder, v *memory.View, dst []byte) ([]byte, error) {
	e.b = append(e.b, '{')
	e.str(1, "id", v.ID, false)
	e.str(1, "type", v.Type, false)
	e.str(1, "title", v.Title, false)
	e.str(1, "body", v.Body, true)
	if len(v.Tags) > 0 {
		e.key(1, "tags")
		e.b = append(e.b, '[')
		for i, t := range v.Tags {
			e.sep(i, 2)
			e.quote(t)
		}
		e.newline(1)
		e.b = append(e.b, ']')
	}
	e.key(1, "stale")
	e.b = strconv.AppendBool(e.b, v.Stale)
	e.str(1, "scope", v.Scope, false)
	e.str(1, "source", v.Source, false)
	e.str(1, "author", v.Author, true)
	for _, f := range []struct {
		name string
		t    time.Time
	}{{"created_at", v.CreatedAt}, {"updated_at", v.UpdatedAt}, {"verified_at", v.VerifiedAt}} {
		e.key(1, f.name)
		var err error
		if e.b, err = jsonenc.AppendTime(e.b, f.t); err != nil {
			return dst, &json.MarshalerError{Err: err}
		}
	}
	e.key(1, "anchors")
	e.anchors(v.Anchors)
	e.str(1, "placement", v.Placement, true)
	e.str(1, "review_reason", v.ReviewReason, true)
	if err := e.lifecycle(&v.ViewLifecycle); err != nil {
		return dst, err
	}
	e.newline(0)
	e.b = append(e.b, '}')
	return e.b, nil
}

// viewEncoder writes MarshalIndent's layout: each member on its own line
// at its depth, "key": value, commas after all but the last.
type viewEncoder struct {
	b              []byte
	prefix, indent string
	members        [4]int // members written so far at each depth
	// compact writes json.Marshal's layout instead: no newlines, no
	// space after a colon.
	compact bool
}

func (e *viewEncoder) newline(depth int) {
	if e.compact {
		return
	}
	e.b = append(e.b, '\n')
	e.b = append(e.b, e.prefix...)
	for range depth {
		e.b = append(e.b, e.indent...)
	}
}

// sep starts element i of an array (or member i of an object) at depth.
func (e *viewEncoder) sep(i, depth int) {
	if i > 0 {
		e.b = append(e.b, ',')
	}
	e.newline(depth)
}

func (e *viewEncoder) key(depth int, name string) {
	e.sep(e.members[depth], depth)
	e.members[depth]++
	e.b = append(e.b, '"')
	e.b = append(e.b, name...)
	if e.compact {
		e.b = append(e.b, '"', ':')
		return
	}
	e.b = append(e.b, `": `...)
}

func (e *viewEncoder) str(depth int, name, val string, omitEmpty bool) {
	if omitEmpty && val == "" {
		return
	}
	e.key(depth, name)
	e.quote(val)
}

func (e *viewEncoder) int(depth int, name string, val int, omitEmpty bool) {
	if omitEmpty && val == 0 {
		return
	}
	e.key(depth, name)
	e.b = strconv.AppendInt(e.b, int64(val), 10)
}

// quote appends s as a JSON string, as json.Marshal(s) encodes it.
func (e *viewEncoder) quote(s string) {
	e.b = jsonenc.AppendString(e.b, s)
}

func (e *viewEncoder) anchors(as []memory.AnchorView) {
	if as == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	if len(as) == 0 {
		e.b = append(e.b, ']')
		return
	}
	for i := range as {
		a := &as[i]
		e.sep(i, 2)
		e.b = append(e.b, '{')
		e.members[3] = 0
		e.str(3, "path", a.Path, false)
		e.str(3, "symbol", a.Symbol, true)
		e.str(3, "kind", a.Kind, false)
		e.int(3, "start_line", a.StartLine, false)
		e.int(3, "end_line", a.EndLine, false)
		e.str(3, "status", a.Status, false)
		e.str(3, "origin_path", a.OriginPath, true)
		e.int(3, "origin_start_line", a.OriginStartLine, true)
		e.int(3, "origin_end_line", a.OriginEndLine, true)
		e.newline(2)
		e.b = append(e.b, '}')
	}
	e.newline(1)
	e.b = append(e.b, ']')
}

// lifecycle writes the members of ViewLifecycle (embedded in View) as
// encoding/json does: confidence always, the rest omitempty/omitzero.
func (e *viewEncoder) lifecycle(l *memory.ViewLifecycle) error {
	e.key(1, "confidence")
	e.b = strconv.AppendFloat(e.b, l.Confidence, 'f', -1, 64)
	e.boolean(1, "pinned", l.Pinned)
	e.boolean(1, "needs_review", l.NeedsReview)
	if err := e.time(1, "stale_since", l.StaleSince); err != nil {
		return err
	}
	if err := e.time(1, "expires_at", l.ExpiresAt); err != nil {
		return err
	}
	e.int(1, "access_count", l.AccessCount, true)
	return e.time(1, "last_accessed_at", l.LastAccessedAt)
}

// boolean writes an omitempty bool member.
func (e *viewEncoder) boolean(depth int, name string, val bool) {
	if val {
		e.key(depth, name)
		e.b = append(e.b, "true"...)
	}
}

// time writes an omitzero time member.
func (e *viewEncoder) time(depth int, name string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	e.key(depth, name)
	var err error
	if e.b, err = jsonenc.AppendTime(e.b, t); err != nil {
		return &json.MarshalerError{Err: err}
	}
	return nil
}
