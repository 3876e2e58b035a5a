package bm25

import (
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/internal/idhash"
)

// Overlay is a saved index with writes laid over it, ranked without
// loading the saved index (Saved.Load reads every posting: about 2 s of
// CPU at 100,000 memories): Search gives the hits, scores (to the last
// bit) and order that Load followed by the same writes (Index.Apply)
// would, as long as those writes would not have compacted that index
// (Compacts; the caller loads it instead). The documents the writes put
// are held in an Index of their own, numbered after the saved index's;
// the saved documents they replace or delete are skipped, and subtracted
// from the document frequencies of the query terms whose postings hold
// them. A CLI search after a few CLI writes ranks through one.
type Overlay struct {
	s *Saved
	x *Index // the documents put by the writes
	// num maps the live saved ids to their document numbers through a
	// map of their hashes (internal/idhash, no pointer: a map of the
	// 100,000 id strings of a large index was scanned by a batch's
	// collector at every cycle, NewOverlay's ids 6.6 MB of its live heap,
	// docs/benchmarks.md).
	num      *idhash.Map
	live     int             // live saved documents not removed
	baseDead int             // the saved index's tombstones
	removed  map[uint32]bool // saved documents the writes replaced or deleted
	compacts bool            // see Compacts
	err      error           // a saved id that could not be read (removeSaved)
}

// newIDMap makes an Overlay's id map (idhash.New); tests give one of a
// weak hash.
var newIDMap = idhash.New

// savedIDs is a Saved as idhash.IDs: the id of document number n.
type savedIDs struct{ s *Saved }

// ID implements idhash.IDs.
func (v savedIDs) ID(n int32) (string, error) { return v.s.id(uint32(n)) }

// NewOverlay returns an Overlay of s with no write yet. It reads every
// id block of s (the ids the writes may replace) and returns
// ErrSavedCorrupt (wrapped) or the error of reading.
func (s *Saved) NewOverlay() (*Overlay, error) {
	o := &Overlay{s: s, x: New(), num: newIDMap(int(s.nDocs)), removed: map[uint32]bool{}}
	err := s.eachID(func(n uint32, id []byte) error {
		if len(id) == 0 {
			o.baseDead++
			return nil
		}
		o.live++
		return o.num.AddBytes(id, int32(n), savedIDs{s})
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// Apply lays one write over the index, as Index.Apply applies it: docs
// put (replacing a document of the same id), then deleted removed.
func (o *Overlay) Apply(docs map[string][]Field, deleted []string) {
	for id := range docs {
		o.removeSaved(id)
	}
	for _, id := range deleted {
		o.removeSaved(id)
	}
	before := len(o.x.ids)
	o.x.Apply(docs, deleted)
	// The loaded index would hold baseDead + removed + x.dead tombstones
	// now; Index.maybeCompact's test on them, and on x itself (whose
	// compaction renumbers it: fewer numbers than it had and put).
	dead := o.baseDead + len(o.removed) + o.x.dead
	if dead > 1024 && dead > o.Len()/2 || len(o.x.ids) != before+len(docs) {
		o.compacts = true
	}
}

// removeSaved marks the saved document of id, if live, removed.
func (o *Overlay) removeSaved(id string) {
	n, ok, err := o.num.Get(id, savedIDs{o.s})
	if err != nil {
		o.err = err
	}
	if !ok {
		return
	}
	o.num.Delete(id)
	o.removed[uint32(n)] = true
	o.live--
}

// Compacts reports whether the saved index loaded and given the writes
// would have compacted (Index.maybeCompact: tombstones over 1,024 and
// half the live documents) after one of them, or the writes' own index
// did: the statistics then differ from those Search uses, and the caller
// must load the index instead.
func (o *Overlay) Compacts() bool { return o.compacts }

// Len returns the number of live documents.
func (o *Overlay) Len() int { return o.live + o.x.Len() }

// Search is Index.Search on the saved index loaded with the writes
// applied (see Overlay). It reads what Saved.Search reads, and the whole
// postings of a query term when a write removed saved documents; it
// returns ErrSavedCorrupt (wrapped) or the error of reading the file.
func (o *Overlay) Search(clauses []Clause, k int, prune bool) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	if o.err != nil {
		return nil, o.err
	}
	s, x := o.s, o.x
	x.mu.RLock()
	defer x.mu.RUnlock()
	order, merged := mergeClauses(clauses)
	base := uint32(s.nDocs) // x's documents are numbered from here
	var cs []cursor
	var lists []*savedList
	slot := 0
	for _, kk := range order {
		sf := s.fields[kk.field]
		xf := x.fields[kk.field]
		var docs, sumLen uint64
		if sf != nil {
			docs, sumLen = sf.docs, sf.sumLen
		}
		if xf != nil {
			docs += uint64(xf.docs)
			sumLen += xf.sumLen
		}
		if docs == 0 {
			continue
		}
		// The saved postings, and how many of them were removed.
		var bl *savedList
		var e savedTerm
		df := uint64(0)
		if sf != nil {
			var ok bool
			var err error
			if e, ok, err = s.lookup(sf, kk.term); err != nil {
				return nil, err
			}
			if ok && e.df > 0 {
				b := make([]byte, e.post.n)
				if b, err = s.readInto(e.post, b); err != nil {
					return nil, err
				}
				if bl, err = s.openList(e, b); err != nil {
					return nil, err
				}
				df = e.df
				if len(o.removed) > 0 {
					c := cursor{src: bl}
					for c.at(0); c.cur != math.MaxUint32; c.at(c.i + 1) {
						if o.removed[c.cur] {
							df--
						}
					}
					if bl.err != nil {
						return nil, fmt.Errorf("%w: postings at %d", bl.err, e.post.off)
					}
					bl.blk = -1
				}
			}
		}
		var p *postings
		if xf != nil {
			if p = xf.terms[kk.term]; p != nil {
				df += uint64(x.liveDF(p))
			}
		}
		if df == 0 {
			continue
		}
		avg := float64(sumLen) / float64(docs)
		w := merged[kk] * Idf(df, docs)
		if bl != nil {
			c := cursor{src: bl, weight: w, avgLen: avg, slot: slot}
			c.at(0)
			c.ub = TermScore(w, uint32(e.maxTF), uint32(e.minLen), avg)
			if w < 0 {
				c.ub = 0
			}
			cs = append(cs, c)
			lists = append(lists, bl)
		}
		if p != nil && len(p.docs) > 0 {
			// x's postings renumbered after the saved documents, with
			// their field lengths per posting (the cursor's plens).
			c := cursor{docs: make([]uint32, len(p.docs)), tfs: p.tfs, plens: make([]uint32, len(p.docs)), weight: w, avgLen: avg, slot: slot}
			for i, d := range p.docs {
				c.docs[i], c.plens[i] = base+d, xf.lens[d]
			}
			c.at(0)
			c.ub = TermScore(w, p.maxTF, p.minLen, avg)
			if w < 0 {
				c.ub = 0
			}
			cs = append(cs, c)
		}
		slot++
	}
	if len(cs) == 0 {
		return nil, nil
	}
	dead := func(d uint32) bool {
		if d < base {
			return o.removed[d]
		}
		return x.ids[d-base] == ""
	}
	return s.topK(cs, k, prune, dead, lists, base, x.ids)
}

// WriteSaved writes the saved index with the writes applied to path, as
// Index.WriteSaved would write the saved index loaded (Saved.Load) with
// the same writes applied, byte for byte (TestOverlayWriteSaved), without
// loading it: a field's dictionary is read a block at a time and each
// term's postings merged with the writes' one term at a time, so memory
// holds the writes' own index, the id map, one dictionary block and one
// field's lengths (overlaySource). The writes must not compact (Compacts). It returns the
// bytes written and the error of reading s or writing path.
func (o *Overlay) WriteSaved(path string, tag []byte) (int64, error) {
	if o.compacts {
		return 0, fmt.Errorf("bm25: the writes laid over a saved index compact it; load it to save it")
	}
	if o.err != nil {
		return 0, o.err
	}
	o.x.mu.RLock()
	defer o.x.mu.RUnlock()
	return writeSavedFile(path, tag, &overlaySource{o: o})
}

// overlaySource is an Overlay as a savedSource (WriteSaved): the field
// being written's saved dictionary, read a block at a time, merged in
// term order with the writes' terms, and the lengths of its postings by
// document number. Nothing of the field is held but one dictionary block,
// the writes' own terms (sorted) and the lengths: a merge of a batch
// held every term of the saved field and its entry at once (at +80,000
// memories 0.58 GB allocated over the batch's merges, docs/benchmarks.md).
type overlaySource struct {
	o      *Overlay
	name   string
	xf     *field     // the writes' field name, or nil
	xTerms []xTerm    // the writes' terms of the field not yet returned, sorted
	blocks []blockRef // the saved field's dictionary blocks not yet read
	dict   decoder    // the rest of the dictionary block being read
	left   uint64     // its entries not yet decoded
	peek   []byte     // the saved term decoded ahead (nil: none)
	peekE  savedTerm
	dbuf   []byte // the dictionary block read (dict's bytes)
	tbuf   []byte // a writes' term returned (next)
	lens   []uint32
	p      postings
	prefix savedPrefix
	list   savedList
	win    []byte // a window of the file read ahead (region)
	winOff uint64
}

// xTerm is a term of the writes' field and its postings.
type xTerm struct {
	t string
	p *postings
}

// regionWindow is how many bytes region reads ahead.
const regionWindow = 1 << 20

// region returns the postings region r, checked against its CRC-32, from
// a window of the file read ahead: a field's regions lie in the file in
// the order of their terms, which is the order the merge asks for them,
// so the base is read in a few large reads rather than one per term.
func (src *overlaySource) region(r blockRef) ([]byte, error) {
	b, err := src.read(r)
	if err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(b) != r.crc {
		return nil, fmt.Errorf("%w: CRC-32 of block at %d", ErrSavedCorrupt, r.off)
	}
	return b, nil
}

// read returns the bytes of block r from the window (region), not
// checked against its CRC-32.
func (src *overlaySource) read(r blockRef) ([]byte, error) {
	s := src.o.s
	if r.off > s.size || r.n > s.size-r.off {
		return nil, fmt.Errorf("%w: block [%d,+%d) past the end", ErrSavedCorrupt, r.off, r.n)
	}
	if r.off < src.winOff || r.off+r.n > src.winOff+uint64(len(src.win)) {
		n := min(max(r.n, regionWindow), s.size-r.off)
		if uint64(cap(src.win)) < n {
			src.win = make([]byte, n)
		}
		src.win, src.winOff = src.win[:n], r.off
		if _, err := s.f.ReadAt(src.win, int64(r.off)); err != nil {
			return nil, err
		}
	}
	return src.win[r.off-src.winOff : r.off-src.winOff+r.n], nil
}

func (src *overlaySource) numIDs() int { return int(src.o.s.nDocs) + len(src.o.x.ids) }

func (src *overlaySource) eachID(fn func(string) error) error {
	err := src.o.s.eachID(func(n uint32, id []byte) error {
		if src.o.removed[n] {
			return fn("")
		}
		return fn(string(id))
	})
	if err != nil {
		return err
	}
	for _, id := range src.o.x.ids {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}

func (src *overlaySource) fieldNames() []string {
	seen := map[string]bool{}
	var names []string
	for name := range src.o.s.fields {
		seen[name] = true
		names = append(names, name)
	}
	for name := range src.o.x.fields {
		if !seen[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func (src *overlaySource) field(name string) (docs int, sumLen uint64, err error) {
	s, x := src.o.s, src.o.x
	if cap(src.lens) < src.numIDs() {
		src.lens = make([]uint32, src.numIDs())
	}
	src.lens = src.lens[:src.numIDs()]
	clear(src.lens)
	src.name, src.xf, src.xTerms = name, x.fields[name], src.xTerms[:0]
	src.blocks, src.dict, src.left, src.peek = nil, decoder{}, 0, nil
	if xf := src.xf; xf != nil {
		docs += xf.docs
		sumLen += xf.sumLen
		for t, p := range xf.terms {
			src.xTerms = append(src.xTerms, xTerm{t, p})
		}
		slices.SortFunc(src.xTerms, func(a, b xTerm) int { return strings.Compare(a.t, b.t) })
	}
	if sf := s.fields[name]; sf != nil {
		docs += int(sf.docs)
		sumLen += sf.sumLen
		src.blocks = sf.blocks
	}
	return docs, sumLen, src.advance()
}

// advance decodes the saved dictionary's next entry into peek and peekE
// (peek nil past the last), reading the next block when one is done.
func (src *overlaySource) advance() error {
	src.peek = nil
	for src.left == 0 {
		if len(src.dict.b) != 0 || src.dict.err != nil {
			return fmt.Errorf("%w: dictionary block of field %q", ErrSavedCorrupt, src.name)
		}
		if len(src.blocks) == 0 {
			return nil
		}
		br := src.blocks[0]
		src.blocks = src.blocks[1:]
		if uint64(cap(src.dbuf)) < br.n {
			src.dbuf = make([]byte, br.n)
		}
		b, err := src.o.s.readInto(br, src.dbuf[:br.n])
		if err != nil {
			return err
		}
		src.dict = decoder{b: b}
		src.left = src.dict.uvarint()
		if src.dict.err != nil {
			return fmt.Errorf("%w: dictionary block at %d", ErrSavedCorrupt, br.off)
		}
	}
	src.left--
	t, e := src.dict.entry()
	if src.dict.err != nil {
		return fmt.Errorf("%w: dictionary block of field %q", ErrSavedCorrupt, src.name)
	}
	src.peek, src.peekE = t, e
	return nil
}

func (src *overlaySource) next() (term []byte, t termPostings, ok bool, err error) {
	var e savedTerm
	var saved bool
	var xp *postings
	switch {
	case src.peek == nil && len(src.xTerms) == 0:
		return nil, t, false, nil
	case src.peek != nil && (len(src.xTerms) == 0 || string(src.peek) <= src.xTerms[0].t):
		term, e, saved = src.peek, src.peekE, true
		if len(src.xTerms) > 0 && src.xTerms[0].t == string(term) {
			xp = src.xTerms[0].p // the same term: one entry
			src.xTerms = src.xTerms[1:]
		}
		// term stays valid while advance decodes the block's next entry;
		// the block's last is copied, as advance reads the next block
		// into the same buffer.
		if src.left == 0 {
			src.tbuf = append(src.tbuf[:0], term...)
			term = src.tbuf
		}
		if err := src.advance(); err != nil {
			return nil, t, false, err
		}
	default:
		src.tbuf = append(src.tbuf[:0], src.xTerms[0].t...)
		term, xp = src.tbuf, src.xTerms[0].p
		src.xTerms = src.xTerms[1:]
	}
	t, err = src.postings(e, saved, xp)
	return term, t, err == nil, err
}

// postings returns the postings of a term of the field: its saved entry
// e when saved, then the writes' postings xp when not nil.
func (src *overlaySource) postings(e savedTerm, saved bool, xp *postings) (termPostings, error) {
	s, x, o := src.o.s, src.o.x, src.o
	p := &src.p
	p.docs, p.tfs = p.docs[:0], p.tfs[:0]
	t := termPostings{p: p, lens: src.lens, minLen: math.MaxUint32}
	xf := src.xf
	if saved && xp == nil && len(o.removed) == 0 {
		// The saved region as it is: the same bytes appendPostings would
		// write again for it (its blocks and skip table unchanged), not
		// decoded, written with the CRC-32 it was read with. It is not
		// checked here: a damaged region stays damaged under its old
		// CRC-32, which the search that reads it reports
		// (ErrSavedCorrupt). Most of a batch merge's terms are not in
		// its writes; decoding, checking and encoding them again was
		// most of the merge's CPU (docs/benchmarks.md).
		b, err := src.read(e.post)
		if err != nil {
			return t, err
		}
		t.raw, t.rawCRC, t.rawDF = b, e.post.crc, int(e.df)
		t.maxTF, t.minLen = uint32(min(e.maxTF, math.MaxUint32)), uint32(min(e.minLen, math.MaxUint32))
		return t, nil
	}
	if saved {
		b, err := src.region(e.post)
		if err != nil {
			return t, err
		}
		l := &src.list
		if err := s.openListInto(l, e, b); err != nil {
			return t, err
		}
		t.maxTF, t.minLen = uint32(min(e.maxTF, math.MaxUint32)), uint32(min(e.minLen, math.MaxUint32))
		// Without removed documents, the saved blocks are copied as they
		// are: all of them when the writes add no posting, else all but
		// the last, which is decoded and written again with the writes'.
		from := 0
		if len(o.removed) == 0 {
			from = len(l.last)
			if xp != nil && from > 0 {
				from--
			}
			if from > 0 {
				src.prefix = savedPrefix{data: l.data[:l.end[from-1]], last: l.last[:from], end: l.end[:from], n: from * savedPostingsPerBlock}
				if from == len(l.last) {
					src.prefix.n = int(e.df)
				}
				t.prefix = &src.prefix
			}
		}
		c := cursor{src: l}
		l.blk = from - 1
		for c.at(0); c.cur != math.MaxUint32; c.at(c.i + 1) {
			if !o.removed[c.cur] {
				p.docs, p.tfs = append(p.docs, c.cur), append(p.tfs, c.tfs[c.i])
				src.lens[c.cur] = c.plens[c.i]
			}
		}
		if l.err != nil {
			return t, fmt.Errorf("%w: postings at %d", l.err, e.post.off)
		}
	}
	if xp != nil {
		base := uint32(s.nDocs)
		live := x.dead == 0 // no tombstone to look up
		for i, d := range xp.docs {
			if live || x.ids[d] != "" {
				p.docs, p.tfs = append(p.docs, base+d), append(p.tfs, xp.tfs[i])
				src.lens[base+d] = xf.lens[d]
			}
		}
		t.maxTF, t.minLen = max(t.maxTF, xp.maxTF), min(t.minLen, xp.minLen)
	}
	return t, nil
}
