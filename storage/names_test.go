package storage_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestNamesOfChunked: package storage gives its adopters every exported name of
// storage/chunked, the driver's core, but those its go:generate line leaves out
// (the core's toolkit for adapters, and names storage has a Helm 3 version of):
// chunked_names.go, which hack/aliasgen writes, is up to date.
func TestNamesOfChunked(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	gen := regexp.MustCompile(`(?m)^//go:generate .*aliasgen -o chunked_names.go \S+ \S+ storage(( \w+)*)$`).FindSubmatch(doc)
	if gen == nil {
		t.Fatal("doc.go has no go:generate line for chunked_names.go")
	}
	skip := strings.Fields(string(gen[1]))
	core := exportedNames(t, "chunked/*.go")
	have := exportedNames(t, "chunked_names.go")
	for _, n := range core {
		if !slices.Contains(have, n) && !slices.Contains(skip, n) {
			t.Errorf("storage lacks chunked.%s: run go generate ./storage", n)
		}
	}
	for _, n := range have {
		if !slices.Contains(core, n) {
			t.Errorf("storage has %s, which chunked no longer exports: run go generate ./storage", n)
		}
	}
}

// exportedNames returns the exported top-level names declared in the Go files
// (tests aside) that pattern matches.
func exportedNames(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files match %s: %v", pattern, err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					out = append(out, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							out = append(out, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								out = append(out, n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
