package index

import (
	"path"
	"strings"
	"sync"

	ts "github.com/odvcencio/gotreesitter"
	"github.com/odvcencio/gotreesitter/grammars"
)

// Language is one entry of the language registry: a tree-sitter grammar,
// the file extensions it claims and the extractor that turns its syntax
// tree into definitions.
type Language struct {
	// Name is the language id used in records and output: "go", "python",
	// "typescript", "tsx", "javascript".
	Name string
	// Extensions are the file name suffixes (with dot) of the language.
	Extensions []string

	load    func() *ts.Language
	once    sync.Once
	ts      *ts.Language
	extract func(x *extractor)
	// weightDiv divides a file's size in its share of an index run's
	// parse budget (treeWeight): its tree-sitter trees hold that much less
	// per source byte than the worst grammar's (TypeScript's ~445 bytes
	// per source byte; Python's ~113: 2). 0 means 1.
	weightDiv int64
	// production: parse on gotreesitter's production route rather than
	// its default, the compact parser core (NewParser).
	production bool
	// walkDefs: definitions' tokens come from a tree walk per definition
	// rather than from the whole-file stream taken before extraction
	// (File.stream). No language sets it; tests set it to compare both.
	walkDefs bool
}

// TS returns the loaded tree-sitter language, loading it on first use.
func (l *Language) TS() *ts.Language {
	l.once.Do(func() { l.ts = l.load() })
	return l.ts
}

var languages = []*Language{
	{Name: "go", Extensions: []string{".go"}, load: grammars.GoLanguage, extract: extractGo},
	{Name: "python", Extensions: []string{".py", ".pyi"}, load: grammars.PythonLanguage, extract: extractPython, weightDiv: 2, production: true},
	{Name: "typescript", Extensions: []string{".ts", ".mts", ".cts"}, load: grammars.TypescriptLanguage, extract: extractTS, production: true},
	{Name: "tsx", Extensions: []string{".tsx"}, load: grammars.TsxLanguage, extract: extractTS, production: true},
	{Name: "javascript", Extensions: []string{".js", ".jsx", ".mjs", ".cjs"}, load: grammars.JavascriptLanguage, extract: extractTS, production: true},
}

// Languages returns the registry in a stable order.
func Languages() []*Language { return languages }

// LanguageFor returns the language of a file by its name, or nil when gloss
// does not index that kind of file.
func LanguageFor(name string) *Language {
	ext := strings.ToLower(path.Ext(name))
	if strings.HasSuffix(strings.ToLower(name), ".d.ts") {
		ext = ".ts"
	}
	for _, l := range languages {
		for _, e := range l.Extensions {
			if e == ext {
				return l
			}
		}
	}
	return nil
}

// LanguageByName returns the registry entry named name, or nil.
func LanguageByName(name string) *Language {
	for _, l := range languages {
		if l.Name == name {
			return l
		}
	}
	return nil
}
