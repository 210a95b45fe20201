// Command arrows measures how the files of a package lean on each other, and how
// wide its types are: issue 31's figures, reproducible.
//
// An arrow A → B is a non-test file A using a name (a function, type, variable,
// constant, field or method) declared in a non-test file B of the same package.
// An arrow is uphill when it lies on a cycle of the file graph: A and B are in
// the same strongly connected component, so no order of the files reads from
// the bottom up. For each package it prints its arrows (with -v), the uphill
// ones, and the method count of each type that has methods.
//
//	go run ./hack/arrows ./kube ./kube/live ./kube/owner ./kube/ops ./ui/...
//	go run ./hack/arrows -v ./kube
package main

import (
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	verbose := flag.Bool("v", false, "list every arrow, not only the uphill ones")
	flag.Parse()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, flag.Args()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "arrows:", err)
		os.Exit(1)
	}
	if packages.PrintErrors(pkgs) > 0 {
		os.Exit(1)
	}
	slices.SortFunc(pkgs, func(a, b *packages.Package) int { return cmp.Compare(a.PkgPath, b.PkgPath) })
	for _, p := range pkgs {
		report(p, *verbose)
	}
}

// arrow is one file using a name declared in another.
type arrow struct{ from, to string }

// report prints one package's figures.
func report(p *packages.Package, verbose bool) {
	arrows := fileArrows(p)
	uphill := onCycles(arrows)
	fmt.Printf("%s: %d files, %d arrows, %d uphill\n", p.PkgPath, len(p.Syntax), len(arrows), len(uphill))
	for _, a := range arrows {
		if verbose || uphill[a] {
			mark := "  "
			if uphill[a] {
				mark = "↑ "
			}
			fmt.Printf("  %s%s → %s (%s)\n", mark, a.from, a.to, strings.Join(arrowNames(p, a), ", "))
		}
	}
	for _, m := range methodCounts(p) {
		fmt.Printf("  type %s: %d methods\n", m.name, m.n)
	}
}

// arrowNames are the names file a.from uses from a.to, sorted: what to move to
// turn an uphill arrow around.
func arrowNames(p *packages.Package, a arrow) []string {
	seen := map[string]bool{}
	for _, f := range p.Syntax {
		if fileOf(p.Fset, f.Pos()) != a.from {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if obj := p.TypesInfo.Uses[id]; obj != nil && obj.Pkg() == p.Types && declaredAtPackageLevel(obj) && fileOf(p.Fset, obj.Pos()) == a.to {
					seen[obj.Name()] = true
				}
			}
			return true
		})
	}
	return slices.Sorted(maps.Keys(seen))
}

// fileArrows lists the distinct arrows between the package's non-test files.
func fileArrows(p *packages.Package) []arrow {
	seen := map[arrow]bool{}
	for _, f := range p.Syntax {
		from := fileOf(p.Fset, f.Pos())
		if strings.HasSuffix(from, "_test.go") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() != p.Types || !declaredAtPackageLevel(obj) {
				return true
			}
			to := fileOf(p.Fset, obj.Pos())
			if to != "" && to != from && !strings.HasSuffix(to, "_test.go") {
				seen[arrow{from, to}] = true
			}
			return true
		})
	}
	out := make([]arrow, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b arrow) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to))
	})
	return out
}

// declaredAtPackageLevel reports whether obj is a name another file can use:
// a package-level name, or a field or method (of a package-level type).
func declaredAtPackageLevel(obj types.Object) bool {
	if obj.Parent() == obj.Pkg().Scope() {
		return true
	}
	switch o := obj.(type) {
	case *types.Func:
		return o.Signature().Recv() != nil
	case *types.Var:
		return o.IsField()
	}
	return false
}

func fileOf(fset *token.FileSet, pos token.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	return filepath.Base(fset.Position(pos).Filename)
}

// onCycles returns the arrows whose two ends are in one strongly connected
// component of the file graph (Tarjan's algorithm).
func onCycles(arrows []arrow) map[arrow]bool {
	next := map[string][]string{}
	var nodes []string
	add := func(n string) {
		if _, ok := next[n]; !ok {
			next[n] = nil
			nodes = append(nodes, n)
		}
	}
	for _, a := range arrows {
		add(a.from)
		add(a.to)
		next[a.from] = append(next[a.from], a.to)
	}
	index, low, comp := map[string]int{}, map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	counter, comps := 0, 0
	var visit func(n string)
	visit = func(n string) {
		index[n], low[n] = counter, counter
		counter++
		stack = append(stack, n)
		onStack[n] = true
		for _, m := range next[n] {
			if _, ok := index[m]; !ok {
				visit(m)
				low[n] = min(low[n], low[m])
			} else if onStack[m] {
				low[n] = min(low[n], index[m])
			}
		}
		if low[n] == index[n] {
			for {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[m] = false
				comp[m] = comps
				if m == n {
					break
				}
			}
			comps++
		}
	}
	for _, n := range nodes {
		if _, ok := index[n]; !ok {
			visit(n)
		}
	}
	out := map[arrow]bool{}
	for _, a := range arrows {
		if comp[a.from] == comp[a.to] {
			out[a] = true
		}
	}
	return out
}

// methods is one type's method count.
type methods struct {
	name string
	n    int
}

// methodCounts lists the package's named types that have methods declared in
// non-test files, the widest first.
func methodCounts(p *packages.Package) []methods {
	count := map[string]int{}
	for _, f := range p.Syntax {
		if strings.HasSuffix(fileOf(p.Fset, f.Pos()), "_test.go") {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			count[receiverName(fd.Recv.List[0].Type)]++
		}
	}
	out := make([]methods, 0, len(count))
	for name, n := range count {
		out = append(out, methods{name, n})
	}
	slices.SortFunc(out, func(a, b methods) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.name, b.name)) })
	return out
}

// receiverName names a method's receiver type, without its pointer or type
// parameters.
func receiverName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return fmt.Sprintf("%T", e)
		}
	}
}
