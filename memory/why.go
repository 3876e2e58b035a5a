package memory

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/scip"
)

// maxWhyMemories bounds the memories Why follows through relations.
const maxWhyMemories = 200

// WhyItem is one memory of a Why answer and why it is there.
type WhyItem struct {
	Memory *Memory
	// Reason is "on the symbol", "on NAME (contains)" or "on NAME (calls)"
	// for memories anchored to the symbol or to a definition at depth 1
	// (Impact), or "related: KIND" for memories reached through
	// relations.
	Reason string
	// Symbol is the definition the memory is on ("" for one reached
	// through relations only).
	Symbol string
}

// WhyEdge is a relation between two memories of a Why answer: From holds
// a relation of Kind to To.
type WhyEdge struct {
	From string `json:"from"`
	Kind string `json:"kind"`
	To   string `json:"to"`
}

// WhyResult is the chain of memories behind a symbol (Why).
type WhyResult struct {
	// Symbol is the SCIP symbol the query resolved to.
	Symbol string
	// Definitions are the definitions at depth 1 that have memories
	// (Impacted; Relation contains or calls).
	Definitions []Impacted
	// Items are ordered by creation time, oldest first (ties by id).
	Items []WhyItem
	// Edges are the relations among Items, in Items order of their source.
	Edges []WhyEdge
}

// Why returns the memories that explain a symbol (a SCIP symbol or a
// unique name): those anchored to it and to the definitions that contain
// or call it (Impact at depth 1), and, transitively, the memories related
// to any of them either way (Memory.Relations and the relation index), at
// most maxWhyMemories; each memory is annotated (Annotate). It fails as
// Impact does.
func (w *Workspace) Why(sym string) (WhyResult, error) {
	im, err := w.Impact(sym, 1)
	if err != nil {
		return WhyResult{}, err
	}
	res := WhyResult{Symbol: im.Symbol}
	names := map[string]Impacted{}
	for _, d := range im.Definitions {
		names[d.Symbol] = d
	}
	seen := map[string]bool{}
	var queue []*Memory
	used := map[string]bool{}
	for _, m := range im.Memories {
		it := WhyItem{Memory: m, Reason: "on the symbol", Symbol: im.Symbol}
		if !anchoredTo(m, im.Symbol) {
			for _, a := range m.Anchors {
				if d, ok := names[a.Symbol]; ok {
					it.Reason, it.Symbol = fmt.Sprintf("on %s (%s)", scip.DisplayName(d.Symbol), d.Relation), d.Symbol
					if !used[d.Symbol] {
						used[d.Symbol] = true
						res.Definitions = append(res.Definitions, d)
					}
					break
				}
			}
		}
		seen[m.ID] = true
		res.Items = append(res.Items, it)
		queue = append(queue, m)
	}
	to, err := w.Incoming()
	if err != nil {
		return res, err
	}
	for len(queue) > 0 && len(res.Items) < maxWhyMemories {
		m := queue[0]
		queue = queue[1:]
		next := append([]Relation(nil), m.Relations...)
		next = append(next, to[m.ID]...)
		for _, r := range next {
			if seen[r.ID] || len(res.Items) >= maxWhyMemories {
				continue
			}
			o, err := w.get(r.ID)
			if err != nil {
				continue // a dangling relation
			}
			seen[o.ID] = true
			res.Items = append(res.Items, WhyItem{Memory: o, Reason: "related: " + r.Kind})
			queue = append(queue, o)
		}
	}
	sort.SliceStable(res.Items, func(i, j int) bool {
		a, b := res.Items[i].Memory, res.Items[j].Memory
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID < b.ID
	})
	for _, it := range res.Items {
		annotateWith(to, it.Memory)
		for _, r := range it.Memory.Relations {
			if seen[r.ID] {
				res.Edges = append(res.Edges, WhyEdge{From: it.Memory.ID, Kind: r.Kind, To: r.ID})
			}
		}
	}
	return res, nil
}

func anchoredTo(m *Memory, sym string) bool {
	for _, a := range m.Anchors {
		if a.Symbol == sym {
			return true
		}
	}
	return false
}

// WhyMarkdown renders a Why answer for people and agents: a heading with
// the symbol's display name, then one numbered entry per memory, oldest
// first: date, type, title, [gloss:ID], status labels (stale, superseded,
// needs review), why it is there, the first paragraph of its body, and its
// relations to other memories by title (titleOf gives them; a dangling one
// reads "(forgotten ID)").
func WhyMarkdown(res WhyResult, titleOf func(id string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Why `%s`\n\n", scip.DisplayName(res.Symbol))
	if len(res.Items) == 0 {
		b.WriteString("No memory is anchored to it or to the definitions that contain or call it.\n")
		return b.String()
	}
	for i, it := range res.Items {
		m := it.Memory
		fmt.Fprintf(&b, "%d. %s · %s · **%s** [gloss:%s]", i+1, m.CreatedAt.Format("2006-01-02"), m.Type, m.Title, m.ID)
		if m.Stale() {
			b.WriteString(" · ⚠ stale")
		}
		if m.Superseded() {
			b.WriteString(" · superseded")
		}
		if m.NeedsReview {
			b.WriteString(" · ⚑ needs review")
		}
		fmt.Fprintf(&b, " — %s\n", it.Reason)
		if body := whyBody(m); body != "" {
			for _, line := range strings.Split(body, "\n") {
				fmt.Fprintf(&b, "   %s\n", line)
			}
		}
		for _, r := range m.Relations {
			fmt.Fprintf(&b, "   %s: %s\n", strings.ReplaceAll(r.Kind, "_", " "), titleOf(r.ID))
		}
	}
	return b.String()
}

// whyBody returns the first paragraph of m's body without a first line
// that only repeats the title.
func whyBody(m *Memory) string {
	body := strings.TrimSpace(m.Body)
	if first, rest, ok := strings.Cut(body, "\n"); ok && strings.TrimSpace(strings.TrimLeft(first, "# ")) == m.Title {
		body = strings.TrimSpace(rest)
	} else if !ok && strings.TrimSpace(strings.TrimLeft(body, "# ")) == m.Title {
		return "" // the title is the whole body; a cut one ("…") is not
	}
	body, _, _ = strings.Cut(body, "\n\n")
	return body
}

// WhyMermaid renders a Why answer as a Mermaid flowchart
// (https://mermaid.js.org/syntax/flowchart.html): the symbol and the
// definitions at depth 1 as rectangles (a definition points at the
// symbol, labelled contains or calls), each memory as a rounded node
// ("type: title", numbered as in WhyMarkdown) linked to its definition,
// and relations as labelled dotted arrows.
func WhyMermaid(res WhyResult) string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	fmt.Fprintf(&b, "  S0[\"%s\"]\n", mermaidLabel(scip.DisplayName(res.Symbol)))
	defNode := map[string]string{res.Symbol: "S0"}
	for i, d := range res.Definitions {
		id := fmt.Sprintf("S%d", i+1)
		defNode[d.Symbol] = id
		fmt.Fprintf(&b, "  %s[\"%s\"]\n  %s -->|%s| S0\n", id, mermaidLabel(scip.DisplayName(d.Symbol)), id, d.Relation)
	}
	memNode := map[string]string{}
	for i, it := range res.Items {
		id := fmt.Sprintf("M%d", i+1)
		memNode[it.Memory.ID] = id
		label := fmt.Sprintf("%d. %s: %s", i+1, it.Memory.Type, it.Memory.Title)
		fmt.Fprintf(&b, "  %s(\"%s\")\n", id, mermaidLabel(label))
		if s, ok := defNode[it.Symbol]; ok && it.Symbol != "" {
			fmt.Fprintf(&b, "  %s --- %s\n", id, s)
		}
	}
	for _, e := range res.Edges {
		fmt.Fprintf(&b, "  %s -.->|%s| %s\n", memNode[e.From], e.Kind, memNode[e.To])
	}
	return b.String()
}

// mermaidLabel escapes a label for a quoted Mermaid node text: quotes
// become the #quot; entity, line breaks spaces.
func mermaidLabel(s string) string {
	return strings.NewReplacer("\"", "#quot;", "\n", " ", "\r", " ").Replace(s)
}
