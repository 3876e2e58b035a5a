package api

import (
	"context"
	"strings"

	"github.com/gloss-dev/gloss/memory"
)

// RelateArgs are the arguments of gloss.relate: memory ID holds a
// relation of kind Relation (supersedes, conflicts_with, required_with,
// validates, derived_from) to memory Target; ids or unique prefixes of at
// least 6 characters. Remove removes the relation instead (a target
// forgotten since may be named by its full id).
type RelateArgs struct {
	ID       string `json:"id"`
	Relation string `json:"relation"`
	Target   string `json:"target"`
	Remove   bool   `json:"remove,omitempty"`
}

// RelateResult is the result of gloss.relate: the source memory with its
// relations, and the target's id and title.
type RelateResult struct {
	Memory      memory.View `json:"memory"`
	Target      string      `json:"target"`
	TargetTitle string      `json:"target_title"`
}

// WhyArgs are the arguments of gloss.why: Symbol is a SCIP symbol or a
// unique definition name.
type WhyArgs struct {
	Symbol string `json:"symbol"`
}

// WhyItem is one memory of gloss.why's answer and why it is there
// (memory.WhyItem.Reason).
type WhyItem struct {
	Memory memory.View `json:"memory"`
	Reason string      `json:"reason"`
}

// WhyResult is the result of gloss.why: the memories behind a symbol,
// oldest first, the relations among them, and both rendered — Markdown
// (memory.WhyMarkdown) and a Mermaid flowchart (memory.WhyMermaid).
type WhyResult struct {
	Symbol   string           `json:"symbol"`
	Items    []WhyItem        `json:"items"`
	Edges    []memory.WhyEdge `json:"edges"`
	Markdown string           `json:"markdown"`
	Mermaid  string           `json:"mermaid"`
}

// FlagArgs are the arguments of gloss.flag: the memory a person says is
// wrong, and why (optional, at most memory.MaxReviewReason characters).
type FlagArgs struct {
	ID     string `json:"id"`
	Reason string `json:"reason,omitempty"`
}

// Relate implements Interface.
func (e *Engine) Relate(_ context.Context, a RelateArgs) (RelateResult, error) {
	if strings.TrimSpace(a.Target) == "" {
		return RelateResult{}, invalid("%s: missing \"target\"", Relate.name)
	}
	if err := memory.ValidateRelationKind(a.Relation); err != nil {
		return RelateResult{}, invalid("%s: %v", Relate.name, err)
	}
	w, m, err := e.find(Relate.name, a.ID)
	if err != nil {
		return RelateResult{}, err
	}
	m, err = w.Relate(m.ID, a.Relation, a.Target, a.Remove)
	if err != nil {
		return RelateResult{}, invalid("%s: %v", Relate.name, err)
	}
	e.Host.Changed(w, nil, true)
	_ = w.Annotate(m)
	res := RelateResult{Memory: memory.ViewOf(m), Target: strings.ToUpper(strings.TrimSpace(a.Target))}
	if t, err := w.Get(a.Target); err == nil {
		res.Target = t.ID
	}
	res.TargetTitle = w.RelatedTitle(res.Target)
	return res, nil
}

// Why implements Interface: the first workspace that defines the symbol
// answers.
func (e *Engine) Why(_ context.Context, a WhyArgs) (WhyResult, error) {
	if strings.TrimSpace(a.Symbol) == "" {
		return WhyResult{}, invalid("%s: missing \"symbol\"", Why.name)
	}
	var firstErr error
	for _, w := range e.Host.Workspaces() {
		res, err := w.Why(a.Symbol)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		out := WhyResult{Symbol: res.Symbol, Items: []WhyItem{}, Edges: res.Edges,
			Markdown: memory.WhyMarkdown(res, w.RelatedTitle), Mermaid: memory.WhyMermaid(res)}
		if out.Edges == nil {
			out.Edges = []memory.WhyEdge{}
		}
		for _, it := range res.Items {
			out.Items = append(out.Items, WhyItem{Memory: memory.ViewOf(it.Memory), Reason: it.Reason})
		}
		return out, nil
	}
	return WhyResult{}, invalid("%s: %v", Why.name, firstErr)
}

// Flag implements Interface.
func (e *Engine) Flag(_ context.Context, a FlagArgs) (memory.View, error) {
	w, m, err := e.find(Flag.name, a.ID)
	if err != nil {
		return memory.View{}, err
	}
	m, err = w.Flag(m.ID, a.Reason)
	if err != nil {
		return memory.View{}, invalid("%s: %v", Flag.name, err)
	}
	e.Host.Changed(w, nil, false)
	return memory.ViewOf(m), nil
}
