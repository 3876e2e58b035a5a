package memory

import (
	"strings"

	"github.com/gloss-dev/gloss/index"
)

// samePlaceDefs returns the definitions of rec (the anchor's file) whose
// SCIP symbol differs from the anchor's only in the namespace: the
// descriptors after the last namespace descriptor ("/"-terminated, SCIP
// symbol grammar, https://github.com/sourcegraph/scip/blob/main/scip.proto)
// and the kind family are the same. A symbol changes this way when the
// file's package changes while the definition stays in the file: Go's
// `package p` → `package p_test` (scip-go names the external test package
// "<path>_test"). Such a definition is the anchored one, whatever its
// content (which the caller then compares), where the name-and-content
// fallback would call a definition that was also edited deleted.
func samePlaceDefs(rec *index.FileRecord, a Anchor) []index.Definition {
	if rec == nil || a.Symbol == "" {
		return nil
	}
	suffix := symbolSuffix(a.Symbol)
	if suffix == "" {
		return nil
	}
	var out []index.Definition
	for _, d := range rec.Defs {
		if d.Symbol != a.Symbol && symbolSuffix(d.Symbol) == suffix && family(d.Kind) == family(a.DefKind) {
			out = append(out, d)
		}
	}
	if len(out) != 1 {
		return nil // ambiguous: leave it to the other fallbacks
	}
	return out
}

// symbolSuffix returns the descriptors of a global SCIP symbol after its
// last namespace descriptor ("" when it has none): "Type#Method()." of
// "scip-go gomod example.com/m v1 `example.com/m/pkg`/Type#Method().".
func symbolSuffix(sym string) string {
	i := strings.LastIndexByte(sym, '/')
	if i < 0 || i == len(sym)-1 {
		return ""
	}
	return sym[i+1:]
}
