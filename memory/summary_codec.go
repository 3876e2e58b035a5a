package memory

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/gloss-dev/gloss/memory/binrec"
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
		b = binrec.AppendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(v.Tags)))
	for _, t := range v.Tags {
		b = binrec.AppendString(b, t)
	}
	b = binrec.AppendBool(b, v.Stale)
	for _, s := range []string{v.Scope, v.Source, v.Author} {
		b = binrec.AppendString(b, s)
	}
	b, err := appendTimes(b, v.ID, v.CreatedAt, v.UpdatedAt, v.VerifiedAt)
	if err != nil {
		return nil, err
	}
	b = binary.AppendUvarint(b, uint64(len(v.Anchors)))
	for _, a := range v.Anchors {
		for _, s := range []string{a.Path, a.Symbol, a.Kind} {
			b = binrec.AppendString(b, s)
		}
		b = binary.AppendVarint(b, int64(a.StartLine))
		b = binary.AppendVarint(b, int64(a.EndLine))
		b = binrec.AppendString(b, a.Status)
		b = binrec.AppendString(b, a.OriginPath)
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
		b = binrec.AppendString(binrec.AppendString(b, r.Kind), r.ID)
	}
	b = binary.AppendUvarint(b, uint64(len(v.SupersededBy)))
	for _, id := range v.SupersededBy {
		b = binrec.AppendString(b, id)
	}
	b = binrec.AppendString(b, v.ReviewReason)
	l := v.ViewLifecycle
	b = binary.AppendUvarint(b, math.Float64bits(l.Confidence))
	b = binrec.AppendBool(binrec.AppendBool(b, l.Pinned), l.NeedsReview)
	b = binary.AppendVarint(b, int64(l.AccessCount))
	b, err := appendTimes(b, v.ID, l.StaleSince, l.ExpiresAt, l.LastAccessedAt)
	if err != nil {
		return nil, err
	}
	return binary.AppendUvarint(b, math.Float64bits(v.halfLifeDays)), nil
}

// decodeSummaryTail reads what encodeSummaryTail wrote into v; a
// version 1 record (v1) has no half-life.
func decodeSummaryTail(d *binrec.Decoder, v *View, v1 bool) {
	if n := d.Count(); n > 0 {
		v.Relations = make([]Relation, n)
		for i := range v.Relations {
			v.Relations[i] = Relation{Kind: d.Str(), ID: d.Str()}
		}
	}
	if n := d.Count(); n > 0 {
		v.SupersededBy = make([]string, n)
		for i := range v.SupersededBy {
			v.SupersededBy[i] = d.Str()
		}
	}
	v.ReviewReason = d.Str()
	l := &v.ViewLifecycle
	l.Confidence = math.Float64frombits(d.Uvarint())
	l.Pinned, l.NeedsReview = d.Bool(), d.Bool()
	l.AccessCount = d.Int()
	d.Times(&l.StaleSince, &l.ExpiresAt, &l.LastAccessedAt)
	if !v1 {
		v.halfLifeDays = math.Float64frombits(d.Uvarint())
	}
}

// summaryScope returns the Scope of a stored summary, skipping the
// fields before it without copying them (a JSON summary is decoded).
func summaryScope(data []byte) (string, error) {
	if len(data) == 0 || (data[0] != summaryMagic && data[0] != summaryMagicV1) {
		v, err := decodeSummary(data)
		return v.Scope, err
	}
	d := binrec.NewDecoder(data[1:], "")
	skipToScope(&d)
	scope := d.Str()
	return scope, d.Err()
}

// skipToScope skips a binary summary's fields before its Scope (ID,
// Type, Title, Body, Tags, Stale) without copying them; d starts after
// the magic byte.
func skipToScope(d *binrec.Decoder) {
	for range 4 { // ID, Type, Title, Body
		d.Bytes()
	}
	for n := d.Count(); n > 0; n-- { // Tags
		d.Bytes()
	}
	d.Bool() // Stale
}

// decodeSummary decodes a stored summary, binary (encodeSummary, either
// version) or JSON (older stores). It fails with binrec.ErrMalformed on a damaged
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
		return binrec.ErrMalformed
	}
	var w string
	if len(whole) == len(data) {
		w = whole[1:]
	}
	d := binrec.NewDecoder(data[1:], w)
	for _, p := range []*string{&v.ID, &v.Type, &v.Title, &v.Body} {
		*p = d.Str()
	}
	if n := d.Count(); n > 0 {
		v.Tags = reuseLen(v.Tags, n)
		for i := range v.Tags {
			v.Tags[i] = d.Str()
		}
	} else {
		v.Tags = nil
	}
	v.Stale = d.Bool()
	for _, p := range []*string{&v.Scope, &v.Source, &v.Author} {
		*p = d.Str()
	}
	d.Times(&v.CreatedAt, &v.UpdatedAt, &v.VerifiedAt)
	v.Anchors = reuseLen(v.Anchors, d.Count())
	for i := range v.Anchors {
		a := &v.Anchors[i]
		*a = AnchorView{}
		a.Path, a.Symbol, a.Kind = d.Str(), d.Str(), d.Str()
		a.StartLine, a.EndLine = d.Int(), d.Int()
		a.Status, a.OriginPath = d.Str(), d.Str()
		a.OriginStartLine, a.OriginEndLine = d.Int(), d.Int()
	}
	decodeSummaryTail(&d, v, data[0] == summaryMagicV1)
	return d.Done()
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
// decoded). path aliases data. It fails with binrec.ErrMalformed on a damaged
// binary record.
func summaryPlaceOf(data []byte) (summaryPlace, error) {
	if len(data) == 0 || (data[0] != summaryMagic && data[0] != summaryMagicV1) {
		v, err := decodeSummary(data)
		if err != nil || len(v.Anchors) == 0 {
			return summaryPlace{}, err
		}
		return summaryPlace{path: []byte(v.Anchors[0].Path), line: v.Anchors[0].StartLine, anchored: true}, nil
	}
	d := binrec.NewDecoder(data[1:], "")
	skipToScope(&d)
	for range 3 + 3 { // Scope, Source, Author; CreatedAt, UpdatedAt, VerifiedAt
		d.Bytes()
	}
	if d.Count() == 0 {
		return summaryPlace{}, d.Err()
	}
	pl := summaryPlace{path: d.Bytes(), anchored: true}
	d.Bytes() // Symbol
	d.Bytes() // Kind
	pl.line = d.Int()
	return pl, d.Err()
}

// appendTimes appends ts (binrec.AppendTimes); it fails, naming memory
// id, on a time time.Time.MarshalBinary refuses.
func appendTimes(b []byte, id string, ts ...time.Time) ([]byte, error) {
	b, err := binrec.AppendTimes(b, ts...)
	if err != nil {
		return nil, fmt.Errorf("encode summary of memory %s: %w", id, err)
	}
	return b, nil
}
