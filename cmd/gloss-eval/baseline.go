package main

import (
	"bytes"
	"context"
)

// lineRange returns lines start..end (1-based, inclusive) of src, and
// whether src has that many lines.
func lineRange(src []byte, start, end int) ([]byte, bool) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	if start < 1 || end > len(lines) || start > end {
		return nil, false
	}
	return bytes.Join(lines[start-1:end], nil), true
}

// LineHash is the line-hash baseline: a memory is stale iff the text of its
// original line range, read at the same path in the commit, differs (or the
// file is gone). It never follows moves.
func LineHash(f *Func, parentSrc, commitSrc []byte, commitHas bool) Prediction {
	p := Prediction{Stale: true}
	if !commitHas {
		return p
	}
	old, ok1 := lineRange(parentSrc, f.Start, f.End)
	cur, ok2 := lineRange(commitSrc, f.Start, f.End)
	if ok1 && ok2 && bytes.Equal(old, cur) {
		p = Prediction{Stale: false, Path: f.Path, Start: f.Start, End: f.End}
	}
	return p
}

// DiffMap is the forge-style diff-map baseline: the original line range is
// mapped through the zero-context hunks of `git diff -U0 --no-renames`.
// A memory is stale iff a hunk touches a line inside the range (an insertion
// strictly between two lines of the range counts) or the file was deleted
// or renamed; otherwise the range shifts by the net line delta of the hunks
// above it.
func DiffMap(f *Func, hunks []Hunk, fileGone bool) Prediction {
	if fileGone {
		return Prediction{Stale: true}
	}
	start, end := f.Start, f.End
	delta := 0
	for _, h := range hunks {
		if h.OldCount == 0 {
			// Pure insertion after line h.OldStart.
			switch {
			case h.OldStart < start:
				delta += h.NewCount
			case h.OldStart < end:
				return Prediction{Stale: true}
			}
			continue
		}
		last := h.OldStart + h.OldCount - 1
		switch {
		case last < start:
			delta += h.NewCount - h.OldCount
		case h.OldStart <= end:
			return Prediction{Stale: true}
		}
	}
	return Prediction{Stale: false, Path: f.Path, Start: start + delta, End: end + delta}
}

// RunBaselines fills the line-hash and diff-map verdicts of every subject.
func RunBaselines(ctx context.Context, s *PairSource, po *PairOracle) error {
	status := map[string]byte{} // parent path -> change status
	for _, c := range po.Changes {
		if c.Old != "" {
			status[c.Old] = c.Status
		}
	}
	hunks := map[string][]Hunk{}
	for _, sub := range po.Subjects {
		f := sub.Func
		psrc, _, err := s.Blobs.Get(s.Parent, f.Path)
		if err != nil {
			return err
		}
		csrc, cok, err := s.Blobs.Get(s.Commit, f.Path)
		if err != nil {
			return err
		}
		sub.LineHash = LineHash(f, psrc, csrc, cok)

		gone := status[f.Path] == 'D' || status[f.Path] == 'R' || !cok
		h, ok := hunks[f.Path]
		if !ok && !gone {
			h, err = s.Git.DiffHunks(ctx, s.Parent, s.Commit, f.Path)
			if err != nil {
				return err
			}
			hunks[f.Path] = h
		}
		sub.DiffMap = DiffMap(f, h, gone)
	}
	return nil
}
