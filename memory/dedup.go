package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/memory/fields"
)

// Duplicate policies of RememberRequest.OnDuplicate: what to do when a new
// memory is a near-duplicate of one on the same anchor (sameAnchorDuplicates).
const (
	// OnDuplicateAdd (the default, also "") stores the new memory and
	// reports the near-duplicates (decision ADD).
	OnDuplicateAdd = "add"
	// OnDuplicateAsk stores nothing when there is a near-duplicate and
	// returns it (decision NOOP) so that the caller can choose a policy.
	OnDuplicateAsk = "ask"
	// OnDuplicateUpdate merges the new text into the nearest duplicate
	// (decision UPDATE).
	OnDuplicateUpdate = "update"
	// OnDuplicateSupersede stores the new memory with a supersedes
	// relation to each duplicate (decision SUPERSEDE).
	OnDuplicateSupersede = "supersede"
	// OnDuplicateNoop stores nothing when there is a near-duplicate
	// (decision NOOP).
	OnDuplicateNoop = "noop"
)

// OnDuplicatePolicies lists the policies in the order docs use.
var OnDuplicatePolicies = []string{OnDuplicateAsk, OnDuplicateAdd, OnDuplicateUpdate, OnDuplicateSupersede, OnDuplicateNoop}

// Decisions of a remember (Decision.Action), the vocabulary of memory
// layers for agents (Mem0's ADD/UPDATE/DELETE/NOOP, with SUPERSEDE in
// place of a delete that would lose the history).
const (
	DecisionAdd       = "ADD"
	DecisionUpdate    = "UPDATE"
	DecisionSupersede = "SUPERSEDE"
	DecisionNoop      = "NOOP"
)

// Decision is what a remember did about near-duplicates.
type Decision struct {
	// Action is ADD (a new memory was stored), UPDATE (the new text was
	// merged into Candidates[0]), SUPERSEDE (a new memory was stored that
	// supersedes every candidate) or NOOP (nothing was stored; the result
	// is Candidates[0] as stored).
	Action string `json:"action"`
	// Candidates are the ids of the near-duplicates on the same anchor
	// that are not superseded themselves, most similar first.
	Candidates []string `json:"candidates,omitempty"`
	// Reason says why, for people and agents.
	Reason string `json:"reason"`
}

// ValidateOnDuplicate returns an error naming the policies when p is not
// one ("" is the default, add).
func ValidateOnDuplicate(p string) error {
	if p == "" || slices.Contains(OnDuplicatePolicies, p) {
		return nil
	}
	return fmt.Errorf("unknown on-duplicate policy %q (want one of %s)", p, strings.Join(OnDuplicatePolicies, ", "))
}

// sameText reports whether two memory bodies are the same text up to
// white space and letter case.
func sameText(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// Decide returns the decision of policy (OnDuplicate*) for a new memory
// of body text given its near-duplicates on the same anchor (most similar
// first, superseded ones left out) and the bodies of those duplicates. It
// is the whole decision table: no candidate, or policy add, is ADD; a
// candidate with the same text (sameText) is NOOP under every other
// policy; otherwise ask and noop are NOOP, update is UPDATE of the most
// similar, supersede is SUPERSEDE of all.
func Decide(policy, body string, cands []Duplicate, bodies map[string]string) Decision {
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.ID
	}
	if len(cands) == 0 {
		return Decision{Action: DecisionAdd, Reason: "no near-duplicate on the same anchor"}
	}
	if policy == "" || policy == OnDuplicateAdd {
		return Decision{Action: DecisionAdd, Candidates: ids, Reason: fmt.Sprintf("stored; %d near-duplicate(s) on the same anchor (on_duplicate update, supersede or noop merges instead)", len(ids))}
	}
	for _, c := range cands {
		if sameText(body, bodies[c.ID]) {
			return Decision{Action: DecisionNoop, Candidates: []string{c.ID}, Reason: fmt.Sprintf("the same text is stored as %s", c.ID)}
		}
	}
	switch policy {
	case OnDuplicateUpdate:
		return Decision{Action: DecisionUpdate, Candidates: ids[:1], Reason: fmt.Sprintf("merged into %s (text similarity %.2f)", ids[0], cands[0].Similarity)}
	case OnDuplicateSupersede:
		return Decision{Action: DecisionSupersede, Candidates: ids, Reason: fmt.Sprintf("stored; supersedes %s", strings.Join(ids, ", "))}
	case OnDuplicateAsk:
		return Decision{Action: DecisionNoop, Candidates: ids, Reason: "nothing stored: near-duplicate(s) on the same anchor; remember again with on_duplicate add, update or supersede"}
	}
	return Decision{Action: DecisionNoop, Candidates: ids, Reason: fmt.Sprintf("nothing stored: near-duplicate of %s", ids[0])}
}

// sameAnchorDuplicates returns the near-duplicates of m on the same code
// (onSameCode) that are not superseded, most similar first, with their
// bodies by id. Candidates are m.Duplicates (NearDuplicates: text
// similarity and the vector index's nearest memories).
func (w *Workspace) sameAnchorDuplicates(m *Memory) ([]Duplicate, map[string]string) {
	dups := m.Duplicates
	to, _ := w.Incoming()
	var out []Duplicate
	bodies := map[string]string{}
	for _, d := range dups {
		o, err := w.get(d.ID)
		if err != nil || !onSameCode(m, o) {
			continue
		}
		if annotateWith(to, o); o.Superseded() {
			continue
		}
		out = append(out, d)
		bodies[o.ID] = o.Body
	}
	return out, bodies
}

// onSameCode reports whether a and b are anchored to the same code: a
// shared symbol, overlapping lines of one file, or both without anchor.
// It is stricter than Duplicate.SameAnchor (any anchor in the same file),
// since a policy may merge or hide a memory.
func onSameCode(a, b *Memory) bool {
	if len(a.Anchors) == 0 && len(b.Anchors) == 0 {
		return true
	}
	for _, x := range a.Anchors {
		for _, y := range b.Anchors {
			if x.Symbol != "" && x.Symbol == y.Symbol {
				return true
			}
			if x.Path == y.Path && x.Range.StartLine <= y.Range.LastLine() && y.Range.StartLine <= x.Range.LastLine() {
				return true
			}
		}
	}
	return false
}

// applyDuplicatePolicy decides what to do with the new memory m of req
// (RememberRequest.OnDuplicate) and does what needs no new record: for
// NOOP it returns the stored candidate, for UPDATE the candidate with m's
// text merged in and saved; for ADD and SUPERSEDE it returns nil and sets
// m's supersedes relations (SUPERSEDE) for the caller to store m. The
// decision is set on the returned memory or on m. It is called by
// rememberChunk with w.writeMu held.
func (w *Workspace) applyDuplicatePolicy(ctx context.Context, req RememberRequest, m *Memory) (*Memory, error) {
	cands, bodies := w.sameAnchorDuplicates(m)
	d := Decide(req.OnDuplicate, m.Body, cands, bodies)
	switch d.Action {
	case DecisionNoop:
		o, err := w.get(d.Candidates[0])
		if err != nil {
			return nil, err
		}
		o.Decision = &d
		return o, nil
	case DecisionUpdate:
		o, err := w.mergeInto(d.Candidates[0], m)
		if err != nil {
			return nil, err
		}
		o.Decision = &d
		return o, nil
	case DecisionSupersede:
		for _, id := range d.Candidates {
			m.Relations = append(m.Relations, Relation{Kind: RelSupersedes, ID: id})
		}
	}
	m.Decision = &d
	return nil, nil
}

// mergeInto appends the body of m to the stored memory id (a paragraph
// of its own, unless the stored body holds it already), adds m's tags and
// saves it durably. The merged memory must pass the size limits.
func (w *Workspace) mergeInto(id string, m *Memory) (*Memory, error) {
	o, err := w.get(id)
	if err != nil {
		return nil, err
	}
	old := o.clone()
	if !strings.Contains(strings.Join(strings.Fields(o.Body), " "), strings.Join(strings.Fields(m.Body), " ")) {
		o.Body = strings.TrimSpace(o.Body) + "\n\n" + m.Body
	}
	o.Tags = slices.Clone(o.Tags)
	for _, t := range m.Tags {
		if !hasTag(o.Tags, t) {
			o.Tags = append(o.Tags, t)
		}
	}
	if err := fields.Validate(o.Title, o.Body, o.Tags); err != nil {
		return nil, fmt.Errorf("merge into %s: %w", id, err)
	}
	o.UpdatedAt = w.now().UTC()
	if err := w.save(old, o); err != nil {
		return nil, err
	}
	return o, nil
}

// checkDuplicates sets m's near-duplicates (NearDuplicates; a failed
// check is warned about and leaves none) and applies req's duplicate
// policy (applyDuplicatePolicy): it returns the stored memory that
// stands for m (NOOP, UPDATE) or nil when m is to be stored.
func (w *Workspace) checkDuplicates(ctx context.Context, req RememberRequest, m *Memory) (*Memory, error) {
	d, err := w.NearDuplicates(ctx, m)
	if err != nil {
		w.warn(fmt.Errorf("near-duplicate check: %w", err))
	}
	m.Duplicates = d
	return w.applyDuplicatePolicy(ctx, req, m)
}
