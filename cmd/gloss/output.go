package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printLine prints v as one compact JSON line (JSON Lines output).
func printLine(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

// printMemory prints one memory in the readable format.
func printMemory(w io.Writer, m memory.View, withBody bool) {
	mark := "ok   "
	if m.Stale {
		mark = "STALE"
	}
	fmt.Fprintf(w, "%s  %s  %s  [%s] %s%s\n", m.ID, mark, confidenceMark(m), termSafe(m.Type, false), termSafe(m.Title, false), lifecycleLabels(m))
	for _, a := range m.Anchors {
		fmt.Fprintf(w, "    %-17s %s", a.Status, placeOf(a))
		if a.Symbol != "" {
			fmt.Fprintf(w, "  %s", termSafe(a.Symbol, false))
		}
		fmt.Fprintln(w)
	}
	if withBody {
		fmt.Fprintf(w, "    by %s, %s", termSafe(orDash(m.Author), false), m.CreatedAt.Local().Format("2006-01-02 15:04"))
		if len(m.Tags) > 0 {
			fmt.Fprintf(w, " · tags: %s", termSafe(strings.Join(m.Tags, ", "), false))
		}
		fmt.Fprintf(w, " · %s\n", m.Scope)
		printRelations(w, m)
		fmt.Fprintln(w)
		for _, l := range strings.Split(termSafe(m.Body, true), "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}

// placeOf formats an anchor's place, with its origin when it moved
// (memory.AnchorView gives the origin only then).
func placeOf(a memory.AnchorView) string {
	s := fmt.Sprintf("%s:%s", termSafe(a.Path, false), lineSpan(a.StartLine, a.EndLine))
	switch {
	case a.OriginStartLine == 0:
	case a.OriginPath != a.Path:
		s += fmt.Sprintf(" (was %s:%s)", termSafe(a.OriginPath, false), lineSpan(a.OriginStartLine, a.OriginEndLine))
	default:
		s += fmt.Sprintf(" (was %s)", lineSpan(a.OriginStartLine, a.OriginEndLine))
	}
	return s
}

func lineSpan(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printCheckJSON prints a check result as printJSON does (the same bytes),
// encoding one memory at a time into a buffered writer instead of the
// whole result at once, so the output of 100,000 memories starts at once
// and is never held twice.
func printCheckJSON(w io.Writer, res api.CheckResult) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	mems := res.Memories
	res.Memories = nil
	rest, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	// rest starts with {\n  "memories": null,
	head, tail, ok := strings.Cut(string(rest), `"memories": null`)
	if !ok {
		return printJSON(w, res)
	}
	bw.WriteString(head)
	if mems == nil {
		bw.WriteString(`"memories": null`)
	} else if len(mems) == 0 {
		bw.WriteString(`"memories": []`)
	} else {
		bw.WriteString("\"memories\": [\n")
		if err := writeViewsJSON(bw, mems); err != nil {
			return err
		}
		bw.WriteString("  ]")
	}
	bw.WriteString(tail)
	bw.WriteByte('\n')
	return bw.Flush()
}

// writeViewsJSON writes the elements of check's "memories" array, one
// memory.AppendViewJSON per memory (indented as MarshalIndent would),
// separated by ",\n", into bw as they are encoded.
func writeViewsJSON(bw *bufio.Writer, mems []memory.View) error {
	var data []byte
	for i := range mems {
		var err error
		if data, err = memory.AppendViewJSON(data[:0], &mems[i], "    ", "  "); err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(data)
		if i < len(mems)-1 {
			bw.WriteByte(',')
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return nil
}
