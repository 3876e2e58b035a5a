package memory

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// summaryFormat is the summary encoding recorded in the store
// (index.Store.SummaryFormat): 0 JSON, 1 encodeSummary's binary form
// without the half-life, 2 with it (what context ranks by). A check
// re-encodes every summary of a store in another format once.
const summaryFormat = 2

// summaryMagic starts a summary record in the binary form (version 2 of
// the layout below); summaryMagicV1 starts the version without the
// half-life, still read (its half-life is 0: the type's); a record
// starting with '{' is the JSON form older glosses wrote, still read.
const (
	summaryMagic   = 0x02
	summaryMagicV1 = 0x01
)

// errSummary reports a truncated or malformed binary summary.
var errSummary = errors.New("malformed summary record")

// encodeSummary returns the stored form of v (a memory's summary, index
// keyspace v): summaryMagic, then the fields of View in declaration
// order, strings and slices as uvarint lengths followed by their bytes or
// elements, ints as varints, bools as one byte, times as
// time.Time.AppendBinary with a uvarint length. Placement and
// NearDuplicates (set only in the result of remember) and Decision are
// not stored. Version 2 ends with the memory's half-life
// (Memory.HalfLifeDays, as a float64 below).
// Decoding is about ten times faster than encoding/json's (no reflection,
// no time parsing), which is what `gloss check` spends on 100,000
// memories (issue #12).
func encodeSummary(v View) ([]byte, error) {
	b := make([]byte, 0, 256+len(v.Body))
	b = append(b, summaryMagic)
	for _, s := range []string{v.ID, v.Type, v.Title, v.Body} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(v.Tags)))
	for _, t := range v.Tags {
		b = appendString(b, t)
	}
	b = appendBool(b, v.Stale)
	for _, s := range []string{v.Scope, v.Source, v.Author} {
		b = appendString(b, s)
	}
	b, err := appendTimes(b, v.ID, v.CreatedAt, v.UpdatedAt, v.VerifiedAt)
	if err != nil {
		return nil, err
	}
	b = binary.AppendUvarint(b, uint64(len(v.Anchors)))
	for _, a := range v.Anchors {
		for _, s := range []string{a.Path, a.Symbol, a.Kind} {
			b = appendString(b, s)
		}
		b = binary.AppendVarint(b, int64(a.StartLine))
		b = binary.AppendVarint(b, int64(a.EndLine))
		b = appendString(b, a.Status)
		b = appendString(b, a.OriginPath)
		b = binary.AppendVarint(b, int64(a.OriginStartLine))
		b = binary.AppendVarint(b, int64(a.OriginEndLine))
	}
	return encodeSummaryTail(b, v)
}

// encodeSummaryTail appends the fields of View after Anchors (relations,
// review reason, lifecycle) in the layout encodeSummary describes; a
// float64 is its IEEE 754 bits as a uvarint. Decision is not stored.
func encodeSummaryTail(b []byte, v View) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(v.Relations)))
	for _, r := range v.Relations {
		b = appendString(appendString(b, r.Kind), r.ID)
	}
	b = binary.AppendUvarint(b, uint64(len(v.SupersededBy)))
	for _, id := range v.SupersededBy {
		b = appendString(b, id)
	}
	b = appendString(b, v.ReviewReason)
	l := v.ViewLifecycle
	b = binary.AppendUvarint(b, math.Float64bits(l.Confidence))
	b = appendBool(appendBool(b, l.Pinned), l.NeedsReview)
	b = binary.AppendVarint(b, int64(l.AccessCount))
	b, err := appendTimes(b, v.ID, l.StaleSince, l.ExpiresAt, l.LastAccessedAt)
	if err != nil {
		return nil, err
	}
	return binary.AppendUvarint(b, math.Float64bits(v.halfLifeDays)), nil
}

// decodeSummaryTail reads what encodeSummaryTail wrote into v; a
// version 1 record (v1) has no half-life.
func decodeSummaryTail(d *summaryDecoder, v *View, v1 bool) {
	if n := d.count(); n > 0 {
		v.Relations = make([]Relation, n)
		for i := range v.Relations {
			v.Relations[i] = Relation{Kind: d.string(), ID: d.string()}
		}
	}
	if n := d.count(); n > 0 {
		v.SupersededBy = make([]string, n)
		for i := range v.SupersededBy {
			v.SupersededBy[i] = d.string()
		}
	}
	v.ReviewReason = d.string()
	l := &v.ViewLifecycle
	l.Confidence = math.Float64frombits(d.uvarint())
	l.Pinned, l.NeedsReview = d.bool(), d.bool()
	l.AccessCount = d.int()
	d.times(&l.StaleSince, &l.ExpiresAt, &l.LastAccessedAt)
	if !v1 {
		v.halfLifeDays = math.Float64frombits(d.uvarint())
	}
}

// summaryScope returns the Scope of a stored summary, skipping the
// fields before it without copying them (a JSON summary is decoded).
func summaryScope(data []byte) (string, error) {
	if len(data) == 0 || (data[0] != summaryMagic && data[0] != summaryMagicV1) {
		v, err := decodeSummary(data)
		return v.Scope, err
	}
	d := summaryDecoder{buf: data[1:]}
	d.skipToScope()
	scope := d.string()
	return scope, d.err
}

// skipToScope skips a binary summary's fields before its Scope (ID,
// Type, Title, Body, Tags, Stale) without copying them; d.buf starts
// after the magic byte.
func (d *summaryDecoder) skipToScope() {
	for range 4 { // ID, Type, Title, Body
		d.bytes()
	}
	for n := d.count(); n > 0; n-- { // Tags
		d.bytes()
	}
	d.bool() // Stale
}

// decodeSummary decodes a stored summary, binary (encodeSummary, either
// version) or JSON (older stores). It fails with errSummary on a damaged
// binary record.
func decodeSummary(data []byte) (View, error) {
	var v View
	err := decodeSummaryInto(&v, data, "")
	return v, err
}

// decodeSummaryInto is decodeSummary into *v (a zero View) whose strings
// are substrings of whole, a string of the same bytes as data (or "" to
// copy each string): one allocation per summary, or per block of
// summaries (Summaries), instead of one per field; the view then keeps
// whole alive.
func decodeSummaryInto(v *View, data []byte, whole string) error {
	if len(data) > 0 && data[0] == '{' {
		return json.Unmarshal(data, v)
	}
	if len(data) == 0 || (data[0] != summaryMagic && data[0] != summaryMagicV1) {
		return errSummary
	}
	d := summaryDecoder{buf: data[1:]}
	if len(whole) == len(data) {
		d.whole = whole[1:]
	}
	for _, p := range []*string{&v.ID, &v.Type, &v.Title, &v.Body} {
		*p = d.string()
	}
	if n := d.count(); n > 0 {
		v.Tags = reuseLen(v.Tags, n)
		for i := range v.Tags {
			v.Tags[i] = d.string()
		}
	} else {
		v.Tags = nil
	}
	v.Stale = d.bool()
	for _, p := range []*string{&v.Scope, &v.Source, &v.Author} {
		*p = d.string()
	}
	d.times(&v.CreatedAt, &v.UpdatedAt, &v.VerifiedAt)
	v.Anchors = reuseLen(v.Anchors, d.count())
	for i := range v.Anchors {
		a := &v.Anchors[i]
		*a = AnchorView{}
		a.Path, a.Symbol, a.Kind = d.string(), d.string(), d.string()
		a.StartLine, a.EndLine = d.int(), d.int()
		a.Status, a.OriginPath = d.string(), d.string()
		a.OriginStartLine, a.OriginEndLine = d.int(), d.int()
	}
	decodeSummaryTail(&d, v, data[0] == summaryMagicV1)
	if d.err == nil && len(d.buf) != 0 {
		d.err = errSummary
	}
	return d.err
}

// reuseLen returns s resized to n elements, in its own memory when it
// has the capacity (a view reused by SummarySet.Each), else in a new
// slice; never nil, as make([]T, n) is not.
func reuseLen[T any](s []T, n int) []T {
	if s == nil || cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// summaryPlace is where a summary sorts (SortViewsByPlace): the path
// and 1-based start line of its first anchor; anchored is false for a
// memory without anchors.
type summaryPlace struct {
	path     []byte
	line     int
	anchored bool
}

// summaryPlaceOf reads the place of a stored summary, skipping the fields
// before its first anchor without copying them (a JSON summary is
// decoded). path aliases data. It fails with errSummary on a damaged
// binary record.
func summaryPlaceOf(data []byte) (summaryPlace, error) {
	if len(data) == 0 || (data[0] != summaryMagic && data[0] != summaryMagicV1) {
		v, err := decodeSummary(data)
		if err != nil || len(v.Anchors) == 0 {
			return summaryPlace{}, err
		}
		return summaryPlace{path: []byte(v.Anchors[0].Path), line: v.Anchors[0].StartLine, anchored: true}, nil
	}
	d := summaryDecoder{buf: data[1:]}
	d.skipToScope()
	for range 3 + 3 { // Scope, Source, Author; CreatedAt, UpdatedAt, VerifiedAt
		d.bytes()
	}
	if d.count() == 0 {
		return summaryPlace{}, d.err
	}
	pl := summaryPlace{path: d.bytes(), anchored: true}
	d.bytes() // Symbol
	d.bytes() // Kind
	pl.line = d.int()
	return pl, d.err
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// summaryDecoder reads encodeSummary's layout; the first error sticks
// and later reads return zero values.
type summaryDecoder struct {
	buf []byte
	// whole, when set, is a string of the bytes buf started with: string
	// returns its substrings rather than copies.
	whole string
	err   error
}

func (d *summaryDecoder) setErr(err error) {
	if d.err == nil && err != nil {
		d.err = err
	}
}

func (d *summaryDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.err = errSummary
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// count reads a slice length, bounded by the bytes left (every element
// takes at least one byte), so a damaged record cannot allocate much.
func (d *summaryDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.buf)) {
		d.setErr(errSummary)
		return 0
	}
	return int(n)
}

func (d *summaryDecoder) bytes() []byte {
	n := d.count()
	if d.err != nil {
		return nil
	}
	out := d.buf[:n]
	d.buf = d.buf[n:]
	return out
}

func (d *summaryDecoder) string() string {
	b := d.bytes()
	if d.whole == "" || len(b) == 0 {
		return string(b)
	}
	end := len(d.whole) - len(d.buf)
	return d.whole[end-len(b) : end]
}

func (d *summaryDecoder) int() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.err = errSummary
		return 0
	}
	d.buf = d.buf[n:]
	return int(v)
}

func (d *summaryDecoder) bool() bool {
	if d.err != nil || len(d.buf) == 0 {
		d.setErr(errSummary)
		return false
	}
	v := d.buf[0]
	d.buf = d.buf[1:]
	return v == 1
}

// appendTimes appends each time as time.Time.MarshalBinary's bytes with a
// uvarint length; it fails (naming memory id) on a time MarshalBinary
// refuses.
func appendTimes(b []byte, id string, ts ...time.Time) ([]byte, error) {
	for _, t := range ts {
		tb, err := t.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("encode summary of memory %s: %w", id, err)
		}
		b = appendString(b, string(tb))
	}
	return b, nil
}

// times reads what appendTimes wrote into ps.
func (d *summaryDecoder) times(ps ...*time.Time) {
	for _, p := range ps {
		if raw := d.bytes(); d.err == nil {
			d.setErr(p.UnmarshalBinary(raw))
		}
	}
}
