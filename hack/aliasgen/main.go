// Command aliasgen prints a Go file that gives package NAME every exported name of
// package PATH, loaded from directory DIR, but those listed after it: types as
// aliases, constants and variables as the same values, functions as wrappers with
// their signatures. storage, Helm 3's driver, re-exports storage/chunked so, for
// its adopters and for chunkview:
//
//	go run ./hack/aliasgen -o FILE PATH DIR NAME [SKIP...]
//
// storage's TestNamesOfChunked fails when the file is stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/format"
	"go/token"
	"go/types"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	out := flag.String("o", "", "the file to write (standard output when empty)")
	flag.Parse()
	if flag.NArg() < 3 {
		fmt.Fprintln(os.Stderr, "usage: aliasgen -o FILE PATH DIR NAME [SKIP...]")
		os.Exit(2)
	}
	path, dir, pkgName := flag.Arg(0), flag.Arg(1), flag.Arg(2)
	skip := map[string]bool{}
	for _, s := range flag.Args()[3:] {
		skip[s] = true
	}
	var buf bytes.Buffer
	generate(&buf, path, dir, pkgName, skip)
	src, err := format.Source(buf.Bytes())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *out == "" {
		_, _ = os.Stdout.Write(src)
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func generate(w io.Writer, path, dir, pkgName string, skip map[string]bool) {
	cfg := &packages.Config{Mode: packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedName, Dir: dir, Env: append(os.Environ(), "GOWORK=off")}
	pkgs, err := packages.Load(cfg, path)
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		fmt.Fprintln(os.Stderr, err, pkgs[0].Errors)
		os.Exit(1)
	}
	p := pkgs[0]
	local := p.Types.Name()
	aliases := map[string]string{
		"k8s.io/apimachinery/pkg/apis/meta/v1":      "metav1",
		"k8s.io/api/core/v1":                        "corev1",
		"k8s.io/client-go/kubernetes/typed/core/v1": "corev1client",
	}
	imports := map[string]string{path: local}
	q := func(pk *types.Package) string {
		a := aliases[pk.Path()]
		if a == "" {
			a = pk.Name()
		}
		imports[pk.Path()] = a
		return a
	}
	scope := p.Types.Scope()
	names := scope.Names()
	sort.Strings(names)
	// first-sentence docs
	docs := map[string]string{}
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Doc != nil {
					docs[d.Name.Name] = d.Doc.Text()
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					var ids []*ast.Ident
					var dc *ast.CommentGroup
					switch s := s.(type) {
					case *ast.TypeSpec:
						ids, dc = []*ast.Ident{s.Name}, s.Doc
					case *ast.ValueSpec:
						ids, dc = s.Names, s.Doc
					}
					if dc == nil {
						dc = d.Doc
					}
					for _, id := range ids {
						if dc != nil {
							docs[id.Name] = dc.Text()
						}
					}
				}
			}
		}
	}
	_ = token.NewFileSet
	var consts, vars, typs, funcs []string
	for _, n := range names {
		if !ast.IsExported(n) || skip[n] {
			continue
		}
		o := scope.Lookup(n)
		comment := fmt.Sprintf("// %s is %s.%s.", n, local, n)
		if s := doc.Synopsis(docs[n]); strings.HasPrefix(s, n+" ") {
			comment = fmt.Sprintf("// %s is %s.%s, which %s", n, local, n, strings.TrimPrefix(s, n+" "))
		}
		switch o := o.(type) {
		case *types.Const:
			consts = append(consts, fmt.Sprintf("%s\n%s = %s.%s", comment, n, local, n))
		case *types.Var:
			vars = append(vars, fmt.Sprintf("%s\n%s = %s.%s", comment, n, local, n))
		case *types.TypeName:
			tp := ""
			args := ""
			if named, ok := o.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
				var ps, as []string
				for i := 0; i < named.TypeParams().Len(); i++ {
					t := named.TypeParams().At(i)
					ps = append(ps, t.Obj().Name()+" "+types.TypeString(t.Constraint(), q))
					as = append(as, t.Obj().Name())
				}
				tp = "[" + strings.Join(ps, ", ") + "]"
				args = "[" + strings.Join(as, ", ") + "]"
			}
			typs = append(typs, fmt.Sprintf("%s\ntype %s%s = %s.%s%s", comment, n, tp, local, n, args))
		case *types.Func:
			sig := o.Type().(*types.Signature)
			var tps, targs []string
			for i := 0; i < sig.TypeParams().Len(); i++ {
				t := sig.TypeParams().At(i)
				tps = append(tps, t.Obj().Name()+" "+types.TypeString(t.Constraint(), q))
				targs = append(targs, t.Obj().Name())
			}
			var params, callArgs []string
			for i := 0; i < sig.Params().Len(); i++ {
				v := sig.Params().At(i)
				name := v.Name()
				if name == "" || name == "_" {
					name = fmt.Sprintf("a%d", i)
				}
				ts := types.TypeString(v.Type(), q)
				if sig.Variadic() && i == sig.Params().Len()-1 {
					ts = "..." + types.TypeString(v.Type().(*types.Slice).Elem(), q)
					name += "..."
					params = append(params, strings.TrimSuffix(name, "...")+" "+ts)
				} else {
					params = append(params, name+" "+ts)
				}
				callArgs = append(callArgs, name)
			}
			var res []string
			for i := 0; i < sig.Results().Len(); i++ {
				res = append(res, types.TypeString(sig.Results().At(i).Type(), q))
			}
			rs := ""
			switch len(res) {
			case 0:
			case 1:
				rs = " " + res[0]
			default:
				rs = " (" + strings.Join(res, ", ") + ")"
			}
			tpStr, targStr := "", ""
			if len(tps) > 0 {
				tpStr = "[" + strings.Join(tps, ", ") + "]"
				targStr = "[" + strings.Join(targs, ", ") + "]"
			}
			ret := "return "
			if len(res) == 0 {
				ret = ""
			}
			funcs = append(funcs, fmt.Sprintf("%s\nfunc %s%s(%s)%s { %s%s.%s%s(%s) }", comment, n, tpStr, strings.Join(params, ", "), rs, ret, local, n, targStr, strings.Join(callArgs, ", ")))
		}
	}
	fmt.Fprintf(w, "// Code generated by aliasgen from %s. DO NOT EDIT.\n\npackage %s\n\nimport (\n", path, pkgName)
	var paths []string
	for ip := range imports {
		paths = append(paths, ip)
	}
	sort.Strings(paths)
	for _, ip := range paths {
		a := imports[ip]
		if a == ip[strings.LastIndex(ip, "/")+1:] {
			fmt.Fprintf(w, "\t%q\n", ip)
		} else {
			fmt.Fprintf(w, "\t%s %q\n", a, ip)
		}
	}
	fmt.Fprintf(w, ")\n\n")
	if len(consts) > 0 {
		fmt.Fprintf(w, "const (\n%s\n)\n\n", indent(consts))
	}
	if len(vars) > 0 {
		fmt.Fprintf(w, "var (\n%s\n)\n\n", indent(vars))
	}
	for _, t := range typs {
		fmt.Fprintf(w, "%s\n\n", t)
	}
	for _, f := range funcs {
		fmt.Fprintf(w, "%s\n\n", f)
	}
}

func indent(xs []string) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		for _, l := range strings.Split(x, "\n") {
			b.WriteString("\t" + l + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
