package memory

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/index"
)

// Proximity of a memory to the query's symbols and files through the
// stored symbol graph: the score of a memory is the best of its anchors'.
// The values order the relations from the most to the least specific; a
// memory on the named symbol itself is what the query asks for, one in
// the file being edited is what its author is looking at, containment and
// calls are direct code dependencies, a shared file is a weaker context,
// an import a weaker one still.
const (
	ProximitySymbol   = 1.0  // anchored to a query symbol
	ProximityFile     = 0.8  // anchored in the current file
	ProximityContains = 0.7  // anchored to a symbol containing or contained in a query symbol
	ProximityCalls    = 0.6  // anchored to a caller or callee of a query symbol
	ProximitySameFile = 0.4  // anchored in the file of a query symbol
	ProximityImports  = 0.3  // anchored in a file importing, or imported by, the current file or a query symbol's file
	maxGraphNeighbors = 256  // symbols taken per relation, so a hub does not flood the graph
	maxGraphSeeds     = 16   // query symbols followed
	minSeedNameLength = 3    // shorter identifiers are too ambiguous to seed the graph
	graphNoSeed       = -1.0 // no proximity
)

// GraphHit is one memory of the graph ranker.
type GraphHit struct {
	Memory *Memory
	// Proximity is the best Proximity* value of its anchors.
	Proximity float64
	// Why names the relation that gave it ("symbol Execute", "calls
	// Execute", "file cmd.go", …).
	Why string
}

// graphHit is a GraphHit before its memory is read: the ranker scores
// memories by their anchors' places alone (graphMemories).
type graphHit struct {
	id        string
	proximity float64
	why       string
}

// identLike matches identifiers and qualified names a query may mention:
// camelCase, snake_case, Type.Method, or a capitalized word.
var identLike = regexp.MustCompile("`[^`]+`|[A-Za-z_][A-Za-z0-9_]*(?:[.#][A-Za-z_][A-Za-z0-9_]*)*")

// QuerySymbols returns the definitions a query names: its identifier-like
// words (in backquotes, or with an inner capital, an underscore, a digit
// or a qualifier: "newRetryPolicy", "max_retries", "Command.Execute";
// capitalized words too: "Execute") that name definitions in the index,
// at most maxGraphSeeds, in query order.
func (w *Workspace) QuerySymbols(query string) ([]index.Definition, error) {
	mentions, err := w.mentionedDefs(query)
	if err != nil {
		return nil, err
	}
	var out []index.Definition
	seen := map[string]bool{}
	for _, m := range mentions {
		if len(out) < maxGraphSeeds && !seen[m.def.Symbol] {
			seen[m.def.Symbol] = true
			out = append(out, m.def)
		}
	}
	return out, nil
}

// maxNamedDefs is the most definitions a word of prose may name to count
// as a mention (namedDefs): a name defined more often ("String", "Error",
// "run") says nothing specific. A qualified name (Type.Method) may match
// up to maxGraphNeighbors definitions of its last part before its
// qualifier narrows them.
const maxNamedDefs = 16

// namedDefs returns the definitions word names (a name, or Type.Method),
// none when it names too many (maxNamedDefs); it counts index keys before
// it decodes any file record.
func (w *Workspace) namedDefs(word string) ([]index.Definition, error) {
	name, limit := word, maxNamedDefs
	if i := strings.LastIndexAny(word, ".#"); i > 0 {
		name, limit = word[i+1:], maxGraphNeighbors
	}
	n, err := w.Store.NameCount(name, limit+1)
	if err != nil || n > limit {
		return nil, err
	}
	return w.defsByName(word)
}

// looksLikeIdentifier reports whether a word of prose is probably code:
// an inner capital, an underscore, a digit, a qualifier, or a leading
// capital.
func looksLikeIdentifier(s string) bool {
	if strings.ContainsAny(s, "_.#0123456789") {
		return true
	}
	return strings.ToLower(s) != s
}

// graphScores are the proximities of symbols and files to the seeds.
type graphScores struct {
	syms, files map[string]float64
	why         map[string]string
	dirs        map[string]float64 // Go package directories reached by imports
}

func (g *graphScores) set(m map[string]float64, key string, v float64, why string) {
	if key != "" && v > m[key] {
		m[key] = v
		g.why[key] = why
	}
}

// GraphRank ranks the memories near the seeds: the definitions seeds (see
// QuerySymbols) and the workspace-relative files. Memories anchored to a
// seed, in a file, or to a symbol that calls, is called by, contains or
// is contained in a seed, or in a file that shares a file or an import
// edge with them (index.Store.Importers, ImportTargets) score by the
// Proximity* constants; the result is ordered by proximity, then id.
func (w *Workspace) GraphRank(seeds []index.Definition, files []string) ([]GraphHit, error) {
	hits, err := w.graphRank(seeds, files)
	if err != nil {
		return nil, err
	}
	out := make([]GraphHit, 0, len(hits))
	for _, h := range hits {
		m, err := w.get(h.id)
		if err != nil {
			continue // forgotten since its summary was read
		}
		out = append(out, GraphHit{Memory: m, Proximity: h.proximity, Why: h.why})
	}
	return out, nil
}

// graphRank is GraphRank without reading the memories: ids, proximities
// and reasons.
func (w *Workspace) graphRank(seeds []index.Definition, files []string) ([]graphHit, error) {
	g := &graphScores{syms: map[string]float64{}, files: map[string]float64{}, why: map[string]string{}, dirs: map[string]float64{}}
	for _, f := range files {
		g.set(g.files, f, ProximityFile, "file "+f)
		if err := w.importNeighbors(g, f); err != nil {
			return nil, err
		}
	}
	for _, d := range seeds {
		if err := w.symbolNeighbors(g, d); err != nil {
			return nil, err
		}
	}
	return w.graphMemories(g)
}

// symbolNeighbors scores seed d, its containers and members, callers and
// callees, its file and the files it shares an import edge with.
func (w *Workspace) symbolNeighbors(g *graphScores, d index.Definition) error {
	name := d.Name
	g.set(g.syms, d.Symbol, ProximitySymbol, "symbol "+name)
	g.set(g.files, d.Path, ProximitySameFile, "same file as "+name)
	g.set(g.syms, d.Parent, ProximityContains, "contains "+name)
	kids, err := w.Store.Children(d.Symbol)
	if err != nil {
		return err
	}
	for _, k := range kids[:min(len(kids), maxGraphNeighbors)] {
		g.set(g.syms, k, ProximityContains, "member of "+name)
	}
	callers, err := w.Store.Callers(name)
	if err != nil {
		return err
	}
	for _, c := range callers[:min(len(callers), maxGraphNeighbors)] {
		g.set(g.syms, c, ProximityCalls, "calls "+name)
	}
	rec, err := w.Store.File(d.Path)
	if err != nil {
		return err
	}
	if rec != nil {
		n := 0
		for _, c := range rec.Calls {
			if c.Caller != d.Symbol || n >= maxGraphNeighbors {
				continue
			}
			defs, err := w.Store.DefsByName(c.Name)
			if err != nil {
				return err
			}
			for _, cd := range defs {
				g.set(g.syms, cd.Symbol, ProximityCalls, "called by "+name)
				n++
			}
		}
	}
	return w.importNeighbors(g, d.Path)
}

// importNeighbors scores the files that import file and those it imports.
func (w *Workspace) importNeighbors(g *graphScores, file string) error {
	importers, err := w.Store.Importers(index.ImportKey(file))
	if err != nil {
		return err
	}
	for _, f := range importers[:min(len(importers), maxGraphNeighbors)] {
		g.set(g.files, f, ProximityImports, "imports "+file)
	}
	targets, err := w.Store.ImportTargets(file)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if strings.HasSuffix(file, ".go") { // a Go import names a package directory
			g.set(g.dirs, t, ProximityImports, "imported by "+file)
		} else {
			g.set(g.files, t, ProximityImports, "imported by "+file)
		}
	}
	return nil
}

// maxGraphMemories bounds the memories graphMemories decodes: at 100,000
// memories a query naming a definition reached thousands through the
// files and package directories of its neighbors, and decoding them took
// seconds (pprof of `gloss search NewHead` on prometheus). Paths are read
// best first, so the bound drops the farthest memories.
const maxGraphMemories = 256

// graphMemories loads the memories anchored in the files of the scored
// symbols, in the scored files and in the scored directories (in that
// order, each by score, then name, until maxGraphMemories are found), and
// scores each by its best anchor.
func (w *Workspace) graphMemories(g *graphScores) ([]graphHit, error) {
	ids := map[string]bool{}
	addIDs := func(list []string, err error) error {
		for _, id := range list {
			ids[id] = true
		}
		return err
	}
	var paths []string
	seen := map[string]bool{}
	for _, s := range byScore(g.syms) {
		if len(paths) > 4*maxGraphNeighbors {
			break
		}
		sites, err := w.Store.SymbolSites(s)
		if err != nil {
			return nil, err
		}
		for _, p := range sites {
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
	}
	for _, f := range byScore(g.files) {
		if !seen[f] {
			seen[f] = true
			paths = append(paths, f)
		}
	}
	for _, p := range paths {
		if len(ids) >= maxGraphMemories {
			break
		}
		if err := addIDs(w.Store.MemoryIDsAt(p)); err != nil {
			return nil, err
		}
	}
	for _, d := range byScore(g.dirs) {
		if len(ids) >= maxGraphMemories {
			break
		}
		if err := addIDs(w.Store.MemoryIDsInDir(d)); err != nil {
			return nil, err
		}
	}
	return w.scoreGraphMemories(g, ids)
}

// scoreGraphMemories scores each memory of ids by its best anchor
// (GraphRank), reading the anchors' paths and symbols from the place
// table when it is warm and in step (placeTable), else from the memory's
// summary (index keyspace v, a binary record of a few hundred bytes)
// when every memory has a current one, else from its record; a memory
// with neither (forgotten meanwhile) is left out. The result is ordered
// by proximity, then id.
func (w *Workspace) scoreGraphMemories(g *graphScores, ids map[string]bool) ([]graphHit, error) {
	current, err := w.Store.SummariesCurrent()
	if err != nil {
		return nil, err
	}
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return nil, err
	}
	var out []graphHit
	for id := range ids {
		anchors, ok, answered := w.places.lookup(id, gen)
		if !answered {
			anchors, ok = w.anchorPlaces(id, current)
		}
		if !ok {
			continue
		}
		h := graphHit{id: id, proximity: graphNoSeed}
		for _, a := range anchors {
			for _, c := range []struct {
				v   float64
				why string
			}{
				{g.syms[a.symbol], g.why[a.symbol]}, {g.files[a.path], g.why[a.path]}, {g.dirs[path.Dir(a.path)], g.why[path.Dir(a.path)]},
			} {
				if c.v > h.proximity {
					h.proximity, h.why = c.v, c.why
				}
			}
		}
		if h.proximity > 0 {
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].proximity != out[j].proximity {
			return out[i].proximity > out[j].proximity
		}
		return out[i].id < out[j].id
	})
	return out, nil
}

// anchorPlaces returns the path and symbol of each anchor of memory id,
// from its summary when fromSummary (decodeSummary), else from its
// record; ok is false when neither can be read.
func (w *Workspace) anchorPlaces(id string, fromSummary bool) (anchors []place, ok bool) {
	if fromSummary {
		data, err := w.Store.Summary(id)
		if err == nil {
			v, err := decodeSummary(data)
			anchors = make([]place, len(v.Anchors))
			for i, a := range v.Anchors {
				anchors[i] = place{a.Path, a.Symbol}
			}
			return anchors, err == nil
		}
	}
	m, err := w.getRecord(id)
	if err != nil {
		return nil, false
	}
	return placesOf(m), true
}

// byScore returns the keys of m by value descending, then key.
func byScore(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
