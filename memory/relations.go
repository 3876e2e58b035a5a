package memory

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gloss-dev/gloss/index"
)

// Relation kinds (DESIGN.md, "Memory record"). A relation is held by its
// source memory (Memory.Relations) and points at a target memory by id:
// "A supersedes B" is stored in A's record and A's memory file.
const (
	// RelSupersedes: the source replaces the target, which is hidden from
	// hover and code lens and ranked lower in search (SupersededFactor).
	RelSupersedes = "supersedes"
	// RelConflictsWith: the two memories disagree; a person should decide.
	RelConflictsWith = "conflicts_with"
	// RelRequiredWith: the source only holds together with the target.
	RelRequiredWith = "required_with"
	// RelValidates: the source (a test, an incident) confirms the target.
	RelValidates = "validates"
	// RelDerivedFrom: the source was written from the target.
	RelDerivedFrom = "derived_from"
)

// RelationKinds lists the relation kinds in the order docs use.
var RelationKinds = []string{RelSupersedes, RelConflictsWith, RelRequiredWith, RelValidates, RelDerivedFrom}

// ValidateRelationKind returns an error naming the allowed kinds when k is
// not one.
func ValidateRelationKind(k string) error {
	if slices.Contains(RelationKinds, k) {
		return nil
	}
	return fmt.Errorf("unknown relation %q (want one of %s)", k, strings.Join(RelationKinds, ", "))
}

// validateRelations checks the relations of m as read from a file or an
// import: known kinds, canonical ids, none to m itself, none twice.
func validateRelations(m *Memory) error {
	seen := map[Relation]bool{}
	for _, r := range m.Relations {
		if err := ValidateRelationKind(r.Kind); err != nil {
			return err
		}
		if !ValidID(r.ID) {
			return fmt.Errorf("relation %s: %q is not a memory id", r.Kind, r.ID)
		}
		if r.ID == m.ID {
			return fmt.Errorf("relation %s: a memory cannot relate to itself", r.Kind)
		}
		if seen[r] {
			return fmt.Errorf("relation %s %s is given twice", r.Kind, r.ID)
		}
		seen[r] = true
	}
	return nil
}

// putRelations keeps the relation index (index.MemoryBatch.PutRelation)
// in step with m replacing old (the stored version; may be nil) in b.
func putRelations(b *index.MemoryBatch, old, m *Memory) error {
	if old != nil {
		for _, r := range old.Relations {
			if !slices.Contains(m.Relations, r) {
				if err := b.DeleteRelation(r.ID, r.Kind, m.ID); err != nil {
					return err
				}
			}
		}
	}
	for _, r := range m.Relations {
		if err := b.PutRelation(r.ID, r.Kind, m.ID); err != nil {
			return err
		}
	}
	return nil
}

// dropRelations removes m's relations from the relation index in b (m is
// deleted, forgotten or hidden). Relations other memories hold to m stay:
// they dangle while m is gone (a restore or a returning file brings it
// back) and are shown as "(forgotten)" (RelatedTitle).
func dropRelations(b *index.MemoryBatch, m *Memory) error {
	for _, r := range m.Relations {
		if err := b.DeleteRelation(r.ID, r.Kind, m.ID); err != nil {
			return err
		}
	}
	return nil
}

// relCache is the relation index held in memory, keyed by the memory
// generation it was read at.
type relCache struct {
	mu  sync.Mutex
	gen uint64
	ok  bool
	// to maps a target id to the relations other memories hold to it,
	// each with the source's id in Relation.ID. Read-only once built.
	to map[string][]Relation
}

// Incoming returns, by target memory id, the relations that memories
// hold to it (Relation.ID is the source). The map is shared: callers must
// not change it. It is read from the relation index once per memory
// generation.
func (w *Workspace) Incoming() (map[string][]Relation, error) {
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return nil, err
	}
	c := &w.rels
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && c.gen == gen {
		return c.to, nil
	}
	to := map[string][]Relation{}
	err = w.Store.Relations(func(target, kind, source string) error {
		to[target] = append(to[target], Relation{Kind: kind, ID: source})
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.to, c.gen, c.ok = to, gen, true
	return to, nil
}

// Annotate sets SupersededBy of each memory of ms from the relation index
// (the ids of the memories that supersede it, nil when none). A store
// error leaves ms as they are and is returned.
func (w *Workspace) Annotate(ms ...*Memory) error {
	to, err := w.Incoming()
	if err != nil {
		return err
	}
	for _, m := range ms {
		annotateWith(to, m)
	}
	return nil
}

func annotateWith(to map[string][]Relation, m *Memory) {
	m.SupersededBy = supersededBy(to, m.ID)
}

// supersededBy returns the ids of the memories that supersede id by the
// incoming relations to; nil when none does.
func supersededBy(to map[string][]Relation, id string) []string {
	var out []string
	for _, r := range to[id] {
		if r.Kind == RelSupersedes {
			out = append(out, r.ID)
		}
	}
	return out
}

// Superseded reports whether another memory supersedes m (set by
// Annotate).
func (m *Memory) Superseded() bool { return len(m.SupersededBy) > 0 }

// RelatedTitle returns the title of memory id for display, or
// "(forgotten ID)" when it is not stored (a dangling relation).
func (w *Workspace) RelatedTitle(id string) string {
	m, err := w.get(id)
	if err != nil {
		return "(forgotten " + id + ")"
	}
	return m.Title
}

// Relate adds the relation kind from memory id to memory target (ids or
// unique prefixes of at least 6 characters) durably and returns the
// source memory; with remove it removes the relation instead. Adding a
// relation that exists changes nothing. It fails, changing nothing, on an
// unknown kind, an unknown id (a dangling target may be removed by its
// full id), a relation of a memory to itself, a supersedes relation that
// would close a cycle (B already supersedes A, directly or through other
// memories), or removing a relation that does not exist.
func (w *Workspace) Relate(id, kind, target string, remove bool) (*Memory, error) {
	if err := ValidateRelationKind(kind); err != nil {
		return nil, err
	}
	return w.edit(id, func(m *Memory) (bool, error) {
		tid, err := w.relationTarget(target, remove)
		if err != nil {
			return false, err
		}
		if tid == m.ID {
			return false, fmt.Errorf("memory %s cannot relate to itself (%s)", m.ID, kind)
		}
		rel := Relation{Kind: kind, ID: tid}
		has := slices.Contains(m.Relations, rel)
		switch {
		case remove && !has:
			return false, fmt.Errorf("memory %s has no relation %s %s", m.ID, kind, tid)
		case !remove && has:
			return false, nil
		case !remove && kind == RelSupersedes:
			if path := w.supersedesPath(tid, m.ID); path != nil {
				return false, fmt.Errorf("%s cannot supersede %s: %s already supersedes it (%s), and supersedes cannot form a cycle",
					m.ID, tid, tid, strings.Join(path, " → "))
			}
		}
		if remove {
			m.Relations = slices.DeleteFunc(slices.Clone(m.Relations), func(r Relation) bool { return r == rel })
		} else {
			m.Relations = append(slices.Clone(m.Relations), rel)
		}
		if len(m.Relations) == 0 {
			m.Relations = nil
		}
		return true, nil
	})
}

// relationTarget returns the full id of the target memory named by id (a
// unique prefix is accepted). When removing, a canonical id that is not
// stored (a dangling relation to a forgotten memory) is accepted as is.
func (w *Workspace) relationTarget(id string, remove bool) (string, error) {
	t, err := w.Get(id)
	if err == nil {
		return t.ID, nil
	}
	if up := strings.ToUpper(strings.TrimSpace(id)); remove && errors.Is(err, ErrNotFound) && ValidID(up) {
		return up, nil
	}
	return "", fmt.Errorf("relation target: %w", err)
}

// supersedesPath returns the ids from memory from to memory to following
// supersedes relations (from, …, to), or nil when to cannot be reached.
// Memories that cannot be read end their path.
func (w *Workspace) supersedesPath(from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if id == to {
			var path []string
			for p := id; p != ""; p = prev[p] {
				path = append([]string{p}, path...)
			}
			return path
		}
		m, err := w.get(id)
		if err != nil {
			continue
		}
		for _, r := range m.Relations {
			if _, seen := prev[r.ID]; r.Kind == RelSupersedes && !seen {
				prev[r.ID] = id
				queue = append(queue, r.ID)
			}
		}
	}
	return nil
}

// SupersededIn reports whether memory id is superseded according to to
// (Incoming), without changing any memory (the language server's cached
// resolutions are shared).
func SupersededIn(to map[string][]Relation, id string) bool {
	for _, r := range to[id] {
		if r.Kind == RelSupersedes {
			return true
		}
	}
	return false
}

// Visible returns the memories of ms that no other memory supersedes (a
// new slice; ms is unchanged), as hover, code lens and diagnostics show
// them. On a store error it returns ms.
func (w *Workspace) Visible(ms []*Memory) []*Memory {
	to, err := w.Incoming()
	if err != nil || len(to) == 0 {
		return ms
	}
	out := make([]*Memory, 0, len(ms))
	for _, m := range ms {
		if !SupersededIn(to, m.ID) {
			out = append(out, m)
		}
	}
	return out
}

// lowerSuperseded annotates the memories of a briefing (Annotate) and
// multiplies the score of superseded ones by SupersededFactor, as search
// does. A store error leaves the items as they are.
func (w *Workspace) lowerSuperseded(items []ContextItem) {
	to, err := w.Incoming()
	if err != nil {
		return
	}
	for i := range items {
		if annotateWith(to, items[i].Memory); items[i].Memory.Superseded() {
			items[i].Score *= SupersededFactor
		}
	}
}
