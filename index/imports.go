package index

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	ts "github.com/odvcencio/gotreesitter"
)

// Import is one import of a file: the module as written and, when it
// names workspace code, the workspace-relative target.
type Import struct {
	// Spec is the imported module as written: a Go import path
	// ("github.com/spf13/cobra/doc"), a Python module (".util",
	// "pkg.sub"), a TypeScript/JavaScript module specifier ("./util").
	Spec string `json:"spec"`
	// Target is the workspace-relative file (Python, TypeScript,
	// JavaScript) or directory (Go: a package) the import resolves to; ""
	// for modules outside the workspace.
	Target string `json:"target,omitempty"`
}

// collectImports records the modules f imports (Go import specs, Python
// import and from-import statements, TypeScript/JavaScript import and
// re-export declarations and require("…") calls) in f.Imports, in source
// order, each once. Targets are filled in later by ResolveImports.
func (x *extractor) collectImports() {
	seen := map[string]bool{}
	add := func(spec string) {
		if spec != "" && !seen[spec] {
			seen[spec] = true
			x.f.Imports = append(x.f.Imports, Import{Spec: spec})
		}
	}
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		switch x.typ(n) {
		case "import_spec": // Go
			add(unquote(x.text(x.field(n, "path"))))
			return
		case "import_statement", "export_statement":
			if src := x.field(n, "source"); src != nil { // TypeScript, JavaScript
				add(unquote(x.text(src)))
				return
			}
			if x.typ(n) == "import_statement" { // Python: import a.b, c as d
				for _, c := range x.children(n) {
					switch x.typ(c) {
					case "dotted_name":
						add(x.text(c))
					case "aliased_import":
						add(x.text(x.field(c, "name")))
					}
				}
				return
			}
		case "import_from_statement": // Python: from .a import b
			mod := x.text(x.field(n, "module_name"))
			add(mod)
			if strings.Trim(mod, ".") == "" { // from . import sub: sub may be a module
				for _, c := range x.children(n) {
					if x.typ(c) == "dotted_name" && c != x.field(n, "module_name") {
						add(mod + x.text(c))
					}
				}
			}
			return
		case "call_expression": // require("x")
			if fn := x.field(n, "function"); x.typ(fn) == "identifier" && x.text(fn) == "require" {
				if args := x.field(n, "arguments"); args != nil {
					for _, c := range x.children(args) {
						if x.typ(c) == "string" {
							add(unquote(x.text(c)))
						}
					}
				}
			}
		}
		if depth > 6 { // imports live near the top of a file
			return
		}
		for _, c := range x.children(n) {
			walk(c, depth+1)
		}
	}
	walk(x.f.tree.RootNode(), 0)
}

// unquote strips the quotes of a string literal ("x", 'x', `x`).
func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"' || s[0] == '`') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// ResolveImports fills in the Target of each import of the file at the
// workspace-relative path file (language lang) whose module is workspace
// code, checking the file system under the project root:
//
//   - Go: an import path under the module path of the nearest go.mod
//     resolves to the package directory, when it exists.
//   - Python: "a.b" resolves to a/b.py or a/b/__init__.py (from the root or
//     the file's top directory, such as src/); ".b" and "..b" relative to
//     the file's package.
//   - TypeScript/JavaScript: "./x" and "../x" resolve to x itself, x with
//     one of the usual extensions, or x/index.*; bare specifiers are
//     packages (no target).
func (p *Project) ResolveImports(lang *Language, file string, imps []Import) {
	for i := range imps {
		imps[i].Target = p.resolveImport(lang, file, imps[i].Spec)
	}
}

func (p *Project) resolveImport(lang *Language, file, spec string) string {
	dir := path.Dir(file)
	switch lang.Name {
	case "go":
		m := p.find("go", dir)
		if m.name == "" || (spec != m.name && !strings.HasPrefix(spec, m.name+"/")) {
			return ""
		}
		target := path.Join(m.dir, strings.TrimPrefix(strings.TrimPrefix(spec, m.name), "/"))
		if target == "" || target == "." {
			target = "."
		}
		if p.isDir(target) {
			return target
		}
	case "python":
		return p.resolvePython(dir, spec)
	default:
		if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
			return ""
		}
		base := path.Join(dir, spec)
		for _, suf := range []string{"", ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js"} {
			if p.isFile(base + suf) {
				return base + suf
			}
		}
		// "./x.js" written for a TypeScript source x.ts (ESM style).
		if ext := path.Ext(base); ext == ".js" || ext == ".jsx" {
			for _, suf := range []string{".ts", ".tsx"} {
				if t := strings.TrimSuffix(base, ext) + suf; p.isFile(t) {
					return t
				}
			}
		}
	}
	return ""
}

func (p *Project) resolvePython(dir, spec string) string {
	rel := strings.TrimLeft(spec, ".")
	dots := len(spec) - len(rel)
	var bases []string
	if dots > 0 {
		base := dir
		for i := 1; i < dots; i++ {
			base = path.Dir(base)
		}
		bases = []string{base}
	} else {
		bases = []string{"."}
		if top, _, ok := strings.Cut(dir, "/"); ok {
			bases = append(bases, top)
		} else if dir != "." {
			bases = append(bases, dir)
		}
	}
	mod := strings.ReplaceAll(rel, ".", "/")
	for _, b := range bases {
		for _, cand := range []string{mod + ".py", mod + "/__init__.py", mod + ".pyi"} {
			if mod == "" {
				cand = strings.TrimPrefix(cand, "/")
			}
			if t := path.Join(b, cand); p.isFile(t) {
				return t
			}
		}
	}
	return ""
}

// isFile reports whether the workspace-relative path rel is a regular
// file under the root (one stat, or the run's cached answer: cacheFiles).
func (p *Project) isFile(rel string) bool {
	if rel == "" || strings.HasPrefix(rel, "../") || rel == ".." {
		return false
	}
	p.mu.Lock()
	ok, known := p.files[rel]
	p.mu.Unlock()
	if known {
		return ok
	}
	st, err := os.Stat(filepath.Join(p.root, filepath.FromSlash(rel)))
	ok = err == nil && st.Mode().IsRegular()
	p.mu.Lock()
	if p.files != nil {
		p.files[rel] = ok
	}
	p.mu.Unlock()
	return ok
}

func (p *Project) isDir(rel string) bool {
	if strings.HasPrefix(rel, "../") || rel == ".." {
		return false
	}
	st, err := os.Stat(filepath.Join(p.root, filepath.FromSlash(rel)))
	return err == nil && st.IsDir()
}

// Importers returns the workspace-relative paths of the files that import
// target (a file, or for Go a package directory; see Import.Target), in
// path order.
func (s *Store) Importers(target string) ([]string, error) {
	var out []string
	err := Scan(s.pdb(), func(rest []string, _ []byte) error {
		if len(rest) >= 1 {
			out = append(out, rest[0])
		}
		return nil
	}, prefixImport, target)
	return out, err
}

// ImportTargets returns the Import.Target of every import of the file at
// path that resolves to workspace code (nil when the file is not indexed).
func (s *Store) ImportTargets(path string) ([]string, error) {
	rec, err := s.File(path)
	if err != nil || rec == nil {
		return nil, err
	}
	var out []string
	for _, im := range rec.Imports {
		if im.Target != "" {
			out = append(out, im.Target)
		}
	}
	return out, nil
}

// ImportKey is the target a file is imported by: the file itself, or for
// Go its directory (a Go import names a package).
func ImportKey(path string) string {
	if strings.HasSuffix(path, ".go") {
		d := pathDir(path)
		return d
	}
	return path
}

func pathDir(p string) string {
	d := path.Dir(p)
	if d == "" {
		return "."
	}
	return d
}
