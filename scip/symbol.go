// Package scip builds and parses SCIP symbol strings the way the official
// SCIP indexers (scip-go, scip-python, scip-typescript) spell them, so that a
// symbol gloss derives from a tree-sitter parse is the same string the real
// indexer emits for the same definition.
//
// Symbol grammar: https://github.com/sourcegraph/scip/blob/main/scip.proto
// ("Symbol" message). Formatting and escaping are delegated to the reference
// Go bindings (github.com/sourcegraph/scip/bindings/go/scip).
package scip

import (
	"fmt"
	"strings"

	scipb "github.com/sourcegraph/scip/bindings/go/scip"
)

// Suffix is the kind of one descriptor in a symbol, as in scip.proto's
// Descriptor.Suffix: it decides the punctuation written after the name.
type Suffix int

// Descriptor suffixes used by gloss. Namespace is written "name/", Type
// "name#", Term "name.", Method "name().", Meta "name:".
const (
	Namespace Suffix = Suffix(scipb.Descriptor_Namespace)
	Type      Suffix = Suffix(scipb.Descriptor_Type)
	Term      Suffix = Suffix(scipb.Descriptor_Term)
	Method    Suffix = Suffix(scipb.Descriptor_Method)
	Meta      Suffix = Suffix(scipb.Descriptor_Meta)
)

// Descriptor is one element of a symbol's path, e.g. {Name: "Command",
// Suffix: Type} for "Command#".
type Descriptor struct {
	Name   string
	Suffix Suffix
}

// Package names the package a symbol belongs to: the scheme (indexer name,
// e.g. "scip-go"), the package manager ("gomod", "python", "npm"), the
// package name and its version. An empty name or version is written "." as
// the SCIP spec requires.
type Package struct {
	Scheme  string
	Manager string
	Name    string
	Version string
}

// Format returns the SCIP symbol string for the package and descriptors,
// e.g. "scip-go gomod github.com/spf13/cobra . `github.com/spf13/cobra`/Command#Execute()."
// Identifiers that are not simple ([A-Za-z0-9_+$-]) are escaped with
// backticks by the reference formatter.
func Format(pkg Package, descs ...Descriptor) string {
	sym := &scipb.Symbol{
		Scheme: pkg.Scheme,
		Package: &scipb.Package{
			Manager: pkg.Manager,
			Name:    pkg.Name,
			Version: pkg.Version,
		},
	}
	for _, d := range descs {
		sym.Descriptors = append(sym.Descriptors, &scipb.Descriptor{Name: d.Name, Suffix: scipb.Descriptor_Suffix(d.Suffix)})
	}
	return scipb.VerboseSymbolFormatter.FormatSymbol(sym)
}

// Append returns parent extended by further descriptors. parent must be a
// symbol produced by Format (or a real indexer); an error is returned when it
// does not parse.
func Append(parent string, descs ...Descriptor) (string, error) {
	sym, err := parseSymbol(parent)
	if err != nil {
		return "", fmt.Errorf("scip: parse %q: %w", parent, err)
	}
	for _, d := range descs {
		sym.Descriptors = append(sym.Descriptors, &scipb.Descriptor{Name: d.Name, Suffix: scipb.Descriptor_Suffix(d.Suffix)})
	}
	return scipb.VerboseSymbolFormatter.FormatSymbol(sym), nil
}

// Parsed is a symbol split into its parts.
type Parsed struct {
	Package     Package
	Descriptors []Descriptor
}

// Parse splits a SCIP symbol string into package and descriptors. It returns
// an error for strings that do not follow the SCIP grammar; local symbols
// ("local N") parse with an empty package and one descriptor.
func Parse(symbol string) (Parsed, error) {
	if strings.TrimSpace(symbol) == "" {
		return Parsed{}, fmt.Errorf("scip: empty symbol")
	}
	sym, err := parseSymbol(symbol)
	if err != nil {
		return Parsed{}, fmt.Errorf("scip: parse %q: %w", symbol, err)
	}
	var p Parsed
	p.Package.Scheme = sym.Scheme
	if sym.Package != nil {
		p.Package.Manager = sym.Package.Manager
		p.Package.Name = sym.Package.Name
		p.Package.Version = sym.Package.Version
	}
	for _, d := range sym.Descriptors {
		p.Descriptors = append(p.Descriptors, Descriptor{Name: d.Name, Suffix: Suffix(d.Suffix)})
	}
	return p, nil
}

// parseSymbol calls the reference parser, turning its panics on some
// malformed input (found by FuzzParse: a multi-byte rune at the end of a
// space-escaped identifier indexes past the end) into errors.
func parseSymbol(symbol string) (sym *scipb.Symbol, err error) {
	defer func() {
		if r := recover(); r != nil {
			sym, err = nil, fmt.Errorf("malformed symbol (%v)", r)
		}
	}()
	return scipb.ParseSymbol(symbol)
}

// DisplayName returns the last descriptor's name of a symbol, e.g. "Execute"
// for "...Command#Execute().", or the whole string when it does not parse.
func DisplayName(symbol string) string {
	p, err := Parse(symbol)
	if err != nil || len(p.Descriptors) == 0 {
		return symbol
	}
	return p.Descriptors[len(p.Descriptors)-1].Name
}

// DescriptorPath returns the descriptor part of a symbol without its package
// (scheme, manager, name, version), e.g. "`github.com/spf13/cobra`/Command#Execute()."
// It returns "" when the symbol does not parse.
func DescriptorPath(symbol string) string {
	sym, err := parseSymbol(symbol)
	if err != nil {
		return ""
	}
	return scipb.DescriptorOnlyFormatter.FormatSymbol(sym)
}
