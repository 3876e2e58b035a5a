package memory

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/jsonenc"
)

// appendRecord appends m's stored record, the JSON json.Marshal(m)
// writes, byte for byte (field order, omitempty and omitzero, HTML
// escaping: TestAppendRecordAsMarshal, FuzzAppendRecordAsMarshal), without
// reflection: encoding/json's reflection was 1.35 of the ~30 CPU-s of a
// +80,000 `remember --batch` on prometheus (pprof, docs/benchmarks.md,
// session 20). A memory whose confidence or half-life encoding/json
// writes in exponent form (or cannot write: NaN, ±Inf) is encoded by
// json.Marshal, and so is one with a time outside what
// time.Time.MarshalJSON writes; the error is then json.Marshal's.
//
// Adding a field to Memory, Anchor, Relation or index.Range means adding
// it here: the test fills every field and compares with json.Marshal.
func appendRecord(dst []byte, m *Memory) ([]byte, error) {
	if !jsonenc.PlainFloat(m.Confidence) || !jsonenc.PlainFloat(m.HalfLifeDays) {
		return appendMarshal(dst, m)
	}
	start := len(dst)
	e := recordEncoder{b: dst}
	e.b = append(e.b, `{"v":`...)
	e.b = strconv.AppendInt(e.b, int64(m.V), 10)
	e.str("id", m.ID)
	e.str("type", m.Type)
	e.str("title", m.Title)
	e.str("body", m.Body)
	e.strs("tags", m.Tags, true)
	e.b = append(e.b, `,"anchors":`...)
	if m.Anchors == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.array(len(m.Anchors), func(i int) { e.anchor(&m.Anchors[i]) })
	}
	e.str("scope", m.Scope)
	e.str("source", m.Source)
	e.strOmit("author", m.Author)
	e.time("created_at", m.CreatedAt)
	e.time("updated_at", m.UpdatedAt)
	e.time("verified_at", m.VerifiedAt)
	e.time("last_accessed_at", m.LastAccessedAt)
	e.int("access_count", int64(m.AccessCount))
	e.float("confidence", m.Confidence)
	e.float("half_life_days", m.HalfLifeDays)
	e.boolOmit("pinned", m.Pinned)
	e.boolOmit("needs_review", m.NeedsReview)
	if !m.StaleSince.IsZero() {
		e.time("stale_since", m.StaleSince)
	}
	if !m.ExpiresAt.IsZero() {
		e.time("expires_at", m.ExpiresAt)
	}
	if len(m.Relations) > 0 {
		e.key("relations")
		e.array(len(m.Relations), func(i int) {
			e.b = append(e.b, `{"kind":`...)
			e.b = jsonenc.AppendString(e.b, m.Relations[i].Kind)
			e.str("id", m.Relations[i].ID)
			e.b = append(e.b, '}')
		})
	}
	e.strOmit("git_commit", m.GitCommit)
	e.strOmit("git_branch", m.GitBranch)
	e.strOmit("embedding_model", m.EmbeddingModel)
	e.strOmit("file_sum", m.FileSum)
	e.strOmit("review_reason", m.ReviewReason)
	e.b = append(e.b, '}')
	if e.timeFailed {
		return appendMarshal(e.b[:start], m)
	}
	return e.b, nil
}

// appendMarshal appends json.Marshal(m), or returns dst and its error.
func appendMarshal(dst []byte, m *Memory) ([]byte, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return dst, err
	}
	return append(dst, data...), nil
}

// recordEncoder writes the members of a JSON object after its first, as
// json.Marshal does: ,"name":value.
type recordEncoder struct {
	b []byte
	// timeFailed is set when a time cannot be written as MarshalJSON
	// writes it (appendRecord then falls back to json.Marshal).
	timeFailed bool
}

func (e *recordEncoder) key(name string) {
	e.b = append(e.b, ',', '"')
	e.b = append(e.b, name...)
	e.b = append(e.b, '"', ':')
}

func (e *recordEncoder) str(name, val string) {
	e.key(name)
	e.b = jsonenc.AppendString(e.b, val)
}

func (e *recordEncoder) strOmit(name, val string) {
	if val != "" {
		e.str(name, val)
	}
}

// strs writes a []string member; omitEmpty leaves out an empty one, else
// nil is null.
func (e *recordEncoder) strs(name string, val []string, omitEmpty bool) {
	if omitEmpty && len(val) == 0 {
		return
	}
	e.key(name)
	if val == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.array(len(val), func(i int) { e.b = jsonenc.AppendString(e.b, val[i]) })
}

// array writes a JSON array of n elements, each written by each(i).
func (e *recordEncoder) array(n int, each func(i int)) {
	e.b = append(e.b, '[')
	for i := range n {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		each(i)
	}
	e.b = append(e.b, ']')
}

func (e *recordEncoder) int(name string, val int64) {
	e.key(name)
	e.b = strconv.AppendInt(e.b, val, 10)
}

func (e *recordEncoder) intOmit(name string, val int64) {
	if val != 0 {
		e.int(name, val)
	}
}

func (e *recordEncoder) boolOmit(name string, val bool) {
	if val {
		e.key(name)
		e.b = append(e.b, "true"...)
	}
}

// float writes a float64 that jsonenc.PlainFloat accepts, as
// encoding/json's floatEncoder does ('f' format, shortest).
func (e *recordEncoder) float(name string, val float64) {
	e.key(name)
	e.b = strconv.AppendFloat(e.b, val, 'f', -1, 64)
}

func (e *recordEncoder) time(name string, t time.Time) {
	e.key(name)
	var err error
	if e.b, err = jsonenc.AppendTime(e.b, t); err != nil {
		e.timeFailed = true
	}
}

func (e *recordEncoder) rng(name string, r index.Range) {
	e.key(name)
	e.b = append(e.b, `{"start_line":`...)
	e.b = strconv.AppendInt(e.b, int64(r.StartLine), 10)
	e.int("start_col", int64(r.StartCol))
	e.int("end_line", int64(r.EndLine))
	e.int("end_col", int64(r.EndCol))
	e.int("start_byte", int64(r.StartByte))
	e.int("end_byte", int64(r.EndByte))
	e.b = append(e.b, '}')
}

func (e *recordEncoder) anchor(a *Anchor) {
	e.b = append(e.b, `{"path":`...)
	e.b = jsonenc.AppendString(e.b, a.Path)
	e.strOmit("symbol", a.Symbol)
	e.str("kind", a.Kind)
	e.rng("range", a.Range)
	e.str("content_hash", a.ContentHash)
	e.strOmit("signature_hash", a.SignatureHash)
	e.strOmit("body_hash", a.BodyHash)
	e.boolOmit("body_unique", a.BodyUnique)
	e.strOmit("def_kind", a.DefKind)
	e.strOmit("def_name", a.DefName)
	e.strs("tokens", a.Tokens, true)
	e.intOmit("lead_lines", int64(a.LeadLines))
	e.intOmit("trail_lines", int64(a.TrailLines))
	e.str("snapshot", a.Snapshot)
	e.strs("context_before", a.ContextBefore, true)
	e.strs("context_after", a.ContextAfter, true)
	e.strOmit("git_commit", a.GitCommit)
	e.strOmit("git_blob", a.GitBlob)
	e.str("status", a.Status)
	e.str("origin_path", a.OriginPath)
	e.rng("origin_range", a.OriginRange)
	e.strOmit("file_hash", a.FileHash)
	e.key("resolved_gen")
	e.b = strconv.AppendUint(e.b, a.ResolvedGen, 10)
	e.time("resolved_at", a.ResolvedAt)
	e.b = append(e.b, '}')
}
