package memory

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/gloss-dev/gloss/memory/confidence"
)

// fusedResults returns the best limit results of f (fuser.results),
// reading each memory that may rank (Workspace.get, or summaryMemory when
// fromSummaries; annotated with the memories superseding it); a memory
// that cannot be read (forgotten since it was indexed) is left out.
func (w *Workspace) fusedResults(f *fuser, limit int, fromSummaries bool) ([]Result, error) {
	to, err := w.Incoming()
	if err != nil {
		return nil, err
	}
	read := w.get
	if fromSummaries {
		read = w.summaryMemory
	}
	return f.results(limit, func(id string) *Memory {
		m, err := read(id)
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
	profile := f.weights.profile
	if profile.Name == "" {
		profile = BuiltinFusion
	}
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
		r.Explain.Fusion = &profile
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
		e.Trust = confidence.SourceTrust(r.Memory.Source)
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

// rankList is one ranker's list: results with their parts, in rank
// order.
type rankList []rankEntry

type rankEntry struct {
	r Result
	p RankerPart
}

func (l *rankList) add(r Result, p RankerPart) { *l = append(*l, rankEntry{r, p}) }

// grow makes room for n more entries at once: an entry holds a whole
// Result (about 230 bytes with its part), so growing a list of hundreds
// by appends alone copies it several times.
func (l *rankList) grow(n int) { *l = slices.Grow(*l, n) }

// runRankers runs the rankers concurrently (the first on the calling
// goroutine), each filling its own list, and fuses the lists in the
// rankers' order, so results and their explanations do not depend on
// which finished first, each part weighed by weigh's weights (nil weigh:
// RankerWeights). It returns the first ranker's error in that order (a
// ranker's panic is returned as an error), else weigh's error.
func runRankers(rankers []func(*rankList) error, weigh func([]rankList) (fusionWeights, error)) (*fuser, error) {
	lists := make([]rankList, len(rankers))
	errs := make([]error, len(rankers))
	var wg sync.WaitGroup
	for i := 1; i < len(rankers); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("search ranker: %v", p)
				}
			}()
			errs[i] = rankers[i](&lists[i])
		}()
	}
	if len(rankers) > 0 {
		errs[0] = rankers[0](&lists[0])
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	f := &fuser{byKey: map[string]*Result{}}
	if weigh != nil {
		var err error
		if f.weights, err = weigh(lists); err != nil {
			return nil, err
		}
	}
	for _, l := range lists {
		for _, e := range l {
			f.add(e.r, e.p)
		}
	}
	return f, nil
}
