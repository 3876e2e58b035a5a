package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/viewjson"
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
	// The heading and anchor lines are written piece by piece into a
	// buffered writer (check's own, or one for this memory) rather than
	// with fmt: `gloss check` prints them for every memory (a tenth of
	// its CPU at 100,000 memories, pprof). The bytes are those of the
	// format "%s  %s  %s  [%s] %s%s\n", then "    %-17s %s" (and "  %s"
	// with a symbol) and "\n" per anchor.
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriter(w)
		defer bw.Flush()
	}
	mark := "ok   "
	if m.Stale {
		mark = "STALE"
	}
	var place []byte
	for _, s := range [...]string{m.ID, "  ", mark, "  ", confidenceMark(m), "  [", termSafe(m.Type, false), "] ", termSafe(m.Title, false), lifecycleLabels(m), "\n"} {
		bw.WriteString(s)
	}
	for _, a := range m.Anchors {
		bw.WriteString("    ")
		status := a.Status
		if status == "" {
			status = "not checked yet" // loaded before the first index completed
		}
		bw.WriteString(status)
		for n := utf8.RuneCountInString(status); n < 17; n++ {
			bw.WriteByte(' ')
		}
		bw.WriteByte(' ')
		place = appendPlace(place[:0], a)
		bw.Write(place)
		if a.Symbol != "" {
			bw.WriteString("  ")
			bw.WriteString(termSafe(a.Symbol, false))
		}
		bw.WriteByte('\n')
	}
	if withBody {
		fmt.Fprintf(bw, "    by %s, %s", termSafe(orDash(m.Author), false), m.CreatedAt.Local().Format("2006-01-02 15:04"))
		if len(m.Tags) > 0 {
			fmt.Fprintf(bw, " · tags: %s", termSafe(strings.Join(m.Tags, ", "), false))
		}
		fmt.Fprintf(bw, " · %s\n", m.Scope)
		printRelations(bw, m)
		fmt.Fprintln(bw)
		for _, l := range strings.Split(termSafe(m.Body, true), "\n") {
			fmt.Fprintf(bw, "    %s\n", l)
		}
	}
}

// placeOf formats an anchor's place, with its origin when it moved
// (memory.AnchorView gives the origin only then).
func placeOf(a memory.AnchorView) string { return string(appendPlace(nil, a)) }

// appendPlace appends placeOf(a) to b.
func appendPlace(b []byte, a memory.AnchorView) []byte {
	b = append(b, termSafe(a.Path, false)...)
	b = append(b, ':')
	b = appendLineSpan(b, a.StartLine, a.EndLine)
	switch {
	case a.OriginStartLine == 0:
	case a.OriginPath != a.Path:
		b = append(b, " (was "...)
		b = append(b, termSafe(a.OriginPath, false)...)
		b = append(b, ':')
		b = append(appendLineSpan(b, a.OriginStartLine, a.OriginEndLine), ')')
	default:
		b = append(b, " (was "...)
		b = append(appendLineSpan(b, a.OriginStartLine, a.OriginEndLine), ')')
	}
	return b
}

// appendLineSpan appends a line span to b: "a", or "a-z" when the lines
// differ.
func appendLineSpan(b []byte, a, z int) []byte {
	b = strconv.AppendInt(b, int64(a), 10)
	if a == z {
		return b
	}
	return strconv.AppendInt(append(b, '-'), int64(z), 10)
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

// printCheckStream runs the check of engine and prints its memories as
// they are decoded (api.Engine.CheckEach), in the bytes printCheckJSON
// (asJSON) or the text check (printMemory of each memory, of the stale
// ones only with staleOnly, then the problems and the summary line)
// print for the whole result. It returns the result without its
// memories. An error from the check after the first memory leaves the
// output cut short.
func printCheckStream(ctx context.Context, w io.Writer, engine *api.Engine, asJSON, staleOnly bool) (api.CheckResult, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var data []byte
	first := true
	each := func(v *memory.View) error {
		if !asJSON {
			if !staleOnly || v.Stale {
				printMemory(bw, *v, false)
			}
			return nil
		}
		var err error
		if data, err = viewjson.Append(data[:0], v, "    ", "  "); err != nil {
			return err
		}
		if first {
			bw.WriteString("{\n  \"memories\": [\n")
			first = false
		} else {
			bw.WriteString(",\n")
		}
		bw.WriteString("    ")
		_, err = bw.Write(data)
		return err
	}
	res, n, err := engine.CheckEach(ctx, each)
	if err != nil {
		return res, err
	}
	if !asJSON {
		printProblems(bw, res.Problems)
		printCheckLine(bw, res, n)
		return res, bw.Flush()
	}
	rest, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return res, err
	}
	// rest starts with {\n  "memories": null,
	head, tail, ok := strings.Cut(string(rest), `"memories": null`)
	if !ok || head != "{\n  " {
		return res, fmt.Errorf("check result encodes as %.40q", rest)
	}
	if first {
		bw.WriteString(head + `"memories": []`) // CheckResultOf's empty slice
	} else {
		bw.WriteString("\n  ]")
	}
	bw.WriteString(tail)
	bw.WriteByte('\n')
	return res, bw.Flush()
}

// printListStream prints the memories of `gloss list` that keep accepts
// as engine decodes them (api.Engine.ListEach), in the bytes the listing
// prints from a whole List result: with asJSON printJSON's
// {"memories": [...]}, else printMemory of each, then the count line. A
// listing of 100,000 memories took 12 s and 918 MB decoding every record
// first (docs/benchmarks.md, session 18). An error after the first
// memory leaves the output cut short.
func printListStream(ctx context.Context, w io.Writer, engine *api.Engine, asJSON bool, keep func(*memory.View) bool) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var data []byte
	n := 0
	_, err := engine.ListEach(ctx, func(v *memory.View) error {
		if !keep(v) {
			return nil
		}
		n++
		if !asJSON {
			printMemory(bw, *v, false)
			return nil
		}
		var err error
		if data, err = viewjson.Append(data[:0], v, "    ", "  "); err != nil {
			return err
		}
		if n == 1 {
			bw.WriteString("{\n  \"memories\": [\n")
		} else {
			bw.WriteString(",\n")
		}
		bw.WriteString("    ")
		_, err = bw.Write(data)
		return err
	})
	if err != nil {
		_ = bw.Flush()
		return err
	}
	switch {
	case !asJSON:
		fmt.Fprintf(bw, "%d memories\n", n)
	case n == 0:
		bw.WriteString("{\n  \"memories\": []\n}\n")
	default:
		bw.WriteString("\n  ]\n}\n")
	}
	return bw.Flush()
}

// writeViewsJSON writes the elements of check's "memories" array, one
// viewjson.Append per memory (indented as MarshalIndent would),
// separated by ",\n", into bw as they are encoded.
func writeViewsJSON(bw *bufio.Writer, mems []memory.View) error {
	var data []byte
	for i := range mems {
		var err error
		if data, err = viewjson.Append(data[:0], &mems[i], "    ", "  "); err != nil {
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
