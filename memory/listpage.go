package memory

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/index"
)

// ComparePlace orders memories as listings do (SortViewsByPlace, List,
// ListEach, a page of ListPage): anchored memories first, by their first
// anchor's path (bytewise) and start line, then by id, which makes the
// order total, so that a cursor (ListCursor) names one position in it.
// It returns a negative number when a comes first, 0 for the same place
// and id, else a positive number.
func ComparePlace(a, b *View) int {
	if c := compareViewPlace(a, b); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// ListCursor is the position of a memory in place order (ComparePlace):
// a page of a listing ends at a cursor and the next page starts after it,
// so memories written or forgotten between two pages neither shift the
// rest nor come twice. Line is the first anchor's 1-based start line;
// Path and Line are empty for a memory without anchors.
type ListCursor struct {
	Anchored bool   `json:"a,omitempty"`
	Path     string `json:"p,omitempty"`
	Line     int    `json:"l,omitempty"`
	ID       string `json:"i"`
}

// CursorOf returns the cursor of v's position.
func CursorOf(v *View) ListCursor {
	c := ListCursor{ID: v.ID}
	if len(v.Anchors) > 0 {
		c.Anchored, c.Path, c.Line = true, v.Anchors[0].Path, v.Anchors[0].StartLine
	}
	return c
}

// ErrBadCursor is the error of ParseListCursor for a string that is not
// an encoded ListCursor (wrapped).
var ErrBadCursor = errors.New("not a cursor of gloss.list (give the next_cursor of the previous page)")

// Encode returns c as an opaque string: base64url (RFC 4648 §5, no
// padding) of its JSON.
func (c ListCursor) Encode() string {
	data, _ := json.Marshal(c) // strings, an int and a bool: cannot fail
	return base64.RawURLEncoding.EncodeToString(data)
}

// ParseListCursor decodes a cursor encoded by Encode; "" gives nil (the
// listing's start). It fails with ErrBadCursor (wrapped).
func ParseListCursor(s string) (*ListCursor, error) {
	if s == "" {
		return nil, nil
	}
	data, err := base64.RawURLEncoding.DecodeString(s)
	var c ListCursor
	if err == nil {
		err = json.Unmarshal(data, &c)
	}
	if err == nil && (c.ID == "" || c.Anchored != (c.Path != "")) {
		err = errors.New("incomplete")
	}
	if err != nil {
		return nil, fmt.Errorf("cursor %q: %w", s, ErrBadCursor)
	}
	return &c, nil
}

// view returns a view at c's position (ComparePlace reads only that).
func (c *ListCursor) view() *View {
	v := &View{ID: c.ID}
	if c.Anchored {
		v.Anchors = []AnchorView{{Path: c.Path, StartLine: c.Line}}
	}
	return v
}

// ListPage returns, in place order (ComparePlace), the first limit
// memories after the cursor after (nil: from the start) that keep
// accepts (nil: all), as List and ListEach give them; limit ≤ 0 means no
// limit. more reports memories past the page, so that the caller hands
// out CursorOf the page's last memory. From current summaries the
// memories are decoded one at a time (ListEach) and the listing stops
// after the page: a page of 100 at 100,000 memories holds 100 views, not
// 100,000 (a whole listing answered 70 MB, docs/benchmarks.md, session
// 21). Otherwise the records are listed (RecordViews).
//
// A page's scan of the summaries also leaves their place order (the
// cursor of every memory, pageIndex) for the next pages while no memory
// is written: a page without a filter is then read as limit summaries by
// id, not a scan of all of them (docs/benchmarks.md, session 22). Whole
// listings (ListEach) do not keep it.
func (w *Workspace) ListPage(after *ListCursor, keep func(*View) bool, limit int) (page []View, more bool, err error) {
	if keep == nil && limit > 0 {
		if page, more, ok, err := w.indexedPage(after, limit); ok || err != nil {
			return page, more, err
		}
	}
	var at *View
	if after != nil {
		at = after.view()
	}
	errFull := errors.New("page full")
	take := func(v *View) error {
		if at != nil && ComparePlace(v, at) <= 0 || keep != nil && !keep(v) {
			return nil
		}
		if limit > 0 && len(page) == limit {
			more = true
			return errFull
		}
		page = append(page, v.clone())
		return nil
	}
	_, ok, err := w.listEach(take, true)
	if errors.Is(err, errFull) {
		err = nil
	}
	if ok || err != nil {
		return page, more, err
	}
	views, err := w.RecordViews()
	if err != nil {
		return nil, false, err
	}
	for i := range views {
		if err := take(&views[i]); err != nil {
			break
		}
	}
	return page, more, nil
}

// pageIndex is the place order of every memory of a workspace with
// current summaries, as the cursor of each (ListCursor), read by a page's
// scan (listEach), at memory generation gen: ListPage's next pages read
// the summaries they need by id while the generation is the same (every
// memory write changes it, in the same Pebble batch). 100,000 memories
// take about 8 MB.
type pageIndex struct {
	gen  uint64
	keys []ListCursor
}

// indexedPage is ListPage without a filter from w's pageIndex: ok is
// false when there is none at the store's memory generation (the caller
// scans). The summaries of the page are read by id; a memory forgotten
// since is skipped. Views are as ListEach gives them (confidence as of
// now, superseded_by, access statistics).
func (w *Workspace) indexedPage(after *ListCursor, limit int) (page []View, more, ok bool, err error) {
	idx := w.pages.Load()
	if idx == nil {
		return nil, false, false, nil
	}
	if gen, err := w.Store.MemoryGeneration(); err != nil || gen != idx.gen {
		return nil, false, false, nil
	}
	i := 0
	if after != nil {
		at := after.view()
		i = sort.Search(len(idx.keys), func(i int) bool { return ComparePlace(idx.keys[i].view(), at) > 0 })
	}
	stats, err := w.Accesses()
	if err != nil {
		stats = nil
	}
	to, err := w.Incoming()
	if err != nil {
		return nil, false, false, nil
	}
	now := w.now()
	for ; i < len(idx.keys) && len(page) < limit; i++ {
		id := idx.keys[i].ID
		data, err := w.Store.Summary(id)
		if errors.Is(err, index.ErrNotFound) {
			continue // forgotten since
		}
		if err != nil {
			return nil, false, true, err
		}
		var v View
		if err := decodeSummaryInto(&v, data, string(data)); err != nil {
			return nil, false, true, fmt.Errorf("corrupt summary of memory %s: %w", id, err)
		}
		settleSummaryView(&v, now, to)
		ApplyAccessView(&v, stats)
		page = append(page, v)
	}
	return page, i < len(idx.keys), true, nil
}

// clone returns a copy of v that shares no slice ListEach reuses (its
// anchors and tags) nor any other slice of v.
func (v *View) clone() View {
	c := *v
	c.Tags = slices.Clone(v.Tags)
	c.Anchors = slices.Clone(v.Anchors)
	c.NearDuplicates = slices.Clone(v.NearDuplicates)
	c.Relations = slices.Clone(v.Relations)
	c.SupersededBy = slices.Clone(v.SupersededBy)
	return c
}
