package memory

import "sort"

// fusedResults returns the best limit results of f (fuser.results),
// reading each memory that may rank (Workspace.get, annotated with the
// memories superseding it); a memory that cannot be read (forgotten since
// it was indexed) is left out.
func (w *Workspace) fusedResults(f *fuser, limit int) ([]Result, error) {
	to, err := w.Incoming()
	if err != nil {
		return nil, err
	}
	return f.results(limit, func(id string) *Memory {
		m, err := w.get(id)
		if err != nil {
			return nil
		}
		annotateWith(to, m)
		return m
	}), nil
}

// results applies confidence, trust and freshness to the fused results
// and returns the best limit (Less). Every multiplier is at most 1, so a
// result's RRF bounds its final score: candidates are taken by RRF,
// best first, and taking stops at the first whose RRF is below the
// limit-th best final score so far, as in Fagin, Lotem and Naor's
// threshold algorithm ("Optimal aggregation algorithms for middleware",
// PODS 2001). Only the memories taken are read (read gives the memory of
// an id, nil when it cannot be read: that result is left out); the
// results are those of scoring every candidate.
func (f *fuser) results(limit int, read func(id string) *Memory) []Result {
	cands := make([]*Result, 0, len(f.order))
	for _, k := range f.order {
		cands = append(cands, f.byKey[k])
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].Explain.RRF != cands[j].Explain.RRF {
			return cands[i].Explain.RRF > cands[j].Explain.RRF
		}
		return cands[i].Key() < cands[j].Key()
	})
	out := make([]Result, 0, min(limit, len(cands)))
	for _, c := range cands {
		if len(out) >= limit && c.Explain.RRF < out[limit-1].Score {
			break
		}
		r := *c
		if r.Kind == ResultMemory && r.Memory == nil {
			if r.Memory = read(r.id); r.Memory == nil {
				continue
			}
		}
		score(&r)
		i := sort.Search(len(out), func(i int) bool { return Less(r, out[i]) })
		if i >= limit {
			continue
		}
		if len(out) < limit {
			out = append(out, Result{})
		}
		copy(out[i+1:], out[i:])
		out[i] = r
	}
	return out
}

// score sets the confidence, trust and freshness multipliers of r and
// its score (Explanation).
func score(r *Result) {
	e := &r.Explain
	e.Confidence, e.Trust, e.Freshness = 1, 1, 1
	if r.Kind == ResultMemory {
		if c := r.Memory.rankConfidence(); c < 1 {
			e.Confidence = ConfidenceFloor + (1-ConfidenceFloor)*c
		}
		e.Trust = SourceTrust(r.Memory.Source)
		if r.Memory.Stale() {
			e.Freshness = StaleFactor
		}
		if r.Memory.Superseded() {
			e.Freshness *= SupersededFactor
		}
	}
	e.Score = e.RRF * e.Confidence * e.Trust * e.Freshness
	r.Score = e.Score
}
