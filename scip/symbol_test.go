package scip

import "testing"

func TestFormatMatchesIndexers(t *testing.T) {
	tests := []struct {
		pkg   Package
		descs []Descriptor
		want  string
	}{
		{Package{"scip-go", "gomod", "github.com/spf13/cobra", "."}, []Descriptor{{"github.com/spf13/cobra", Namespace}, {"Command", Type}, {"Execute", Method}},
			"scip-go gomod github.com/spf13/cobra . `github.com/spf13/cobra`/Command#Execute()."},
		{Package{"scip-python", "python", "snapshot-util", "0.1"}, []Descriptor{{"src.foo.bar.baz.mod", Namespace}, {"SuchNestedMuchWow", Type}, {"class_item", Term}},
			"scip-python python snapshot-util 0.1 `src.foo.bar.baz.mod`/SuchNestedMuchWow#class_item."},
		{Package{"scip-typescript", "npm", "syntax", "1.0.0"}, []Descriptor{{"src", Namespace}, {"symbol-kinds.ts", Namespace}, {"Example", Type}, {"<constructor>", Method}},
			"scip-typescript npm syntax 1.0.0 src/`symbol-kinds.ts`/Example#`<constructor>`()."},
		{Package{"scip-go", "gomod", "", ""}, []Descriptor{{"a", Namespace}, {"F", Method}},
			"scip-go gomod . . a/F()."},
	}
	for _, tt := range tests {
		got := Format(tt.pkg, tt.descs...)
		if got != tt.want {
			t.Errorf("Format = %q, want %q", got, tt.want)
			continue
		}
		p, err := Parse(got)
		if err != nil {
			t.Errorf("Parse(%q): %v", got, err)
			continue
		}
		if len(p.Descriptors) != len(tt.descs) || p.Descriptors[len(p.Descriptors)-1] != tt.descs[len(tt.descs)-1] {
			t.Errorf("Parse(%q) descriptors = %+v", got, p.Descriptors)
		}
		if DisplayName(got) != tt.descs[len(tt.descs)-1].Name {
			t.Errorf("DisplayName(%q) = %q", got, DisplayName(got))
		}
	}
	if _, err := Parse(""); err == nil {
		t.Error("Parse(\"\") succeeded")
	}
	if _, err := Parse("scip-go gomod x . `unterminated"); err == nil {
		t.Error("Parse of a malformed symbol succeeded")
	}
	if got := DescriptorPath("scip-go gomod m . `m/p`/T#M()."); got != "`m/p`/T#M()." {
		t.Errorf("DescriptorPath = %q", got)
	}
	if s, err := Append("scip-go gomod m . `m/p`/T#", Descriptor{"F", Term}); err != nil || s != "scip-go gomod m . `m/p`/T#F." {
		t.Errorf("Append = %q, %v", s, err)
	}
}

// FuzzParse: Parse never panics, and a symbol it accepts formats back to a
// string that parses to the same parts.
func FuzzParse(f *testing.F) {
	f.Add("scip-go gomod github.com/spf13/cobra . `github.com/spf13/cobra`/Command#Execute().")
	f.Add("scip-typescript npm syntax 1.0.0 src/`symbol-kinds.ts`/Example#`<constructor>`().")
	f.Add("local 3")
	f.Add("a b c d `e")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		if p.Package.Scheme == "local" {
			return
		}
		for _, d := range p.Descriptors {
			if d.Name == "" {
				// The reference formatter writes an empty name without
				// backticks, which does not parse back; gloss never makes
				// such descriptors (names come from identifiers).
				return
			}
		}
		again, err := Parse(Format(p.Package, p.Descriptors...))
		if err != nil {
			t.Fatalf("formatted %q does not parse: %v", s, err)
		}
		if len(again.Descriptors) != len(p.Descriptors) {
			t.Fatalf("round trip of %q changed its descriptors", s)
		}
	})
}
