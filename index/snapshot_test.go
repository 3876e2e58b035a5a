package index

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestSnapshots renders every definition of the fixture workspaces under
// testdata/snapshots/input as caret annotations below the source line, as
// scip-go's snapshot tests do, and compares with testdata/snapshots/output.
// Run with -update to rewrite the golden files.
func TestSnapshots(t *testing.T) {
	inputs, err := filepath.Glob("testdata/snapshots/input/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, ws := range inputs {
		t.Run(filepath.Base(ws), func(t *testing.T) {
			abs, _ := filepath.Abs(ws)
			pc := NewProject(abs)
			parsers := map[*Language]*ts.Parser{}
			err := filepath.Walk(ws, func(p string, info os.FileInfo, err error) error {
				if err != nil || info.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(ws, p)
				rel = filepath.ToSlash(rel)
				lang := LanguageFor(rel)
				if lang == nil {
					return nil
				}
				src, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				ix := &Indexer{Project: pc}
				f, err := ix.ParseSource(parsers, lang, rel, src)
				if err != nil {
					return err
				}
				defer f.Release()
				got := renderSnapshot(f)
				golden := filepath.Join("testdata/snapshots/output", filepath.Base(ws), filepath.FromSlash(rel)) + ".snap"
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						return err
					}
					return os.WriteFile(golden, []byte(got), 0o644)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Errorf("%s: %v (run go test ./index -run TestSnapshots -update)", rel, err)
					return nil
				}
				if string(want) != got {
					t.Errorf("%s: snapshot differs (run with -update and review the diff)\n--- got\n%s", rel, got)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// renderSnapshot prints src with each definition marked under the line of
// its name: carets under the name, then "definition SYMBOL", its kind,
// 1-based line range and parent.
func renderSnapshot(f *File) string {
	comment := "//"
	if f.Lang.Name == "python" {
		comment = "#"
	}
	byLine := map[int][]Definition{}
	for _, d := range f.Defs {
		byLine[d.NameRange.StartLine] = append(byLine[d.NameRange.StartLine], d)
	}
	var b strings.Builder
	lines := strings.Split(string(f.Src), "\n")
	for i, l := range lines {
		if i == len(lines)-1 && l == "" {
			break
		}
		b.WriteString("  " + l + "\n")
		defs := byLine[i]
		sort.SliceStable(defs, func(a, c int) bool { return defs[a].NameRange.StartCol < defs[c].NameRange.StartCol })
		for _, d := range defs {
			col := d.NameRange.StartCol + 2 - len(comment)
			width := max(1, d.NameRange.EndCol-d.NameRange.StartCol)
			pad := strings.Repeat(" ", max(0, col))
			b.WriteString(comment + pad + strings.Repeat("^", width) + " definition " + d.Symbol + "\n")
			b.WriteString(comment + pad + "kind " + d.Kind + " lines " + itoa(d.Range.StartLine+1) + "-" + itoa(d.Range.LastLine()+1))
			if d.DocLine != d.Range.StartLine {
				b.WriteString(" doc " + itoa(d.DocLine+1))
			}
			b.WriteString("\n")
			if d.Doc != "" {
				b.WriteString(comment + pad + "documentation " + strings.ReplaceAll(d.Doc, "\n", " ") + "\n")
			}
		}
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }
