// Command callgraph-truth prints the call sites of a Go module as go/types resolves them: the
// truth the call-graph bench scores our Go resolver against (bench/harness/callgraph_truth.py).
//
// Usage: callgraph-truth DIR > truth.json (DIR holds go.mod; its packages and their tests are
// loaded with golang.org/x/tools/go/packages, dependencies from the module proxy).
//
// One record per call site with a name (`f(...)`, `x.m(...)`, `pkg.F(...)`):
// [file, line, name, where, target, dispatch, implementations], where is "in" (target is
// "file:line:name" of a function or method declared in DIR), "out" (a call that reaches no
// function of DIR: the standard library, a dependency, a builtin, a conversion `T(x)`, a
// function value) or "" (go/types could not say). dispatch is true on a method called through
// an interface (or a type parameter): implementations then lists the methods of DIR's types
// that implement that interface, which the bench accepts beside the interface's method.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

type output struct {
	Sites   int     `json:"sites"`
	Errors  int     `json:"type_errors"`
	Records [][]any `json:"records"`
}

type resolver struct {
	root  string
	fset  *token.FileSet
	named []*types.Named // DIR's named non-interface types, for the implementations of an interface
	impls map[*types.Func][]string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: callgraph-truth DIR")
		os.Exit(2)
	}
	root, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	fset := token.NewFileSet()
	config := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports,
		Dir: root, Tests: true, Fset: fset,
	}
	loaded, err := packages.Load(config, "./...")
	if err != nil {
		fail(err)
	}
	r := &resolver{root: root, fset: fset, impls: map[*types.Func][]string{}}
	out := output{Records: [][]any{}}
	for _, p := range loaded {
		out.Errors += len(p.TypeErrors)
		if p.Types == nil {
			continue
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			if t, ok := scope.Lookup(name).(*types.TypeName); ok {
				if n, ok := t.Type().(*types.Named); ok && !types.IsInterface(n) && r.inside(t.Pos()) {
					r.named = append(r.named, n)
				}
			}
		}
	}
	for _, p := range loaded {
		if p.TypesInfo == nil {
			continue
		}
		for _, file := range p.Syntax {
			if !r.inside(file.Pos()) {
				continue
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if record := r.site(p.TypesInfo, call); record != nil {
						out.Sites++
						out.Records = append(out.Records, record)
					}
				}
				return true
			})
		}
	}
	encoder := json.NewEncoder(os.Stdout)
	if err := encoder.Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "callgraph-truth:", err)
	os.Exit(1)
}

func (r *resolver) inside(pos token.Pos) bool {
	if !pos.IsValid() {
		return false
	}
	rel, err := filepath.Rel(r.root, r.fset.Position(pos).Filename)
	return err == nil && !strings.HasPrefix(rel, "..")
}

func (r *resolver) where(pos token.Pos, name string) string {
	position := r.fset.Position(pos)
	rel, _ := filepath.Rel(r.root, position.Filename)
	return fmt.Sprintf("%s:%d:%s", filepath.ToSlash(rel), position.Line, name)
}

// site is the record of one call, or nil when its callee has no name (a literal, a call's result).
func (r *resolver) site(info *types.Info, call *ast.CallExpr) []any {
	fun := ast.Unparen(call.Fun)
	switch index := fun.(type) { // a generic function's explicit instantiation: f[T](x)
	case *ast.IndexExpr:
		fun = ast.Unparen(index.X)
	case *ast.IndexListExpr:
		fun = ast.Unparen(index.X)
	}
	var ident *ast.Ident
	switch callee := fun.(type) {
	case *ast.Ident:
		ident = callee
	case *ast.SelectorExpr:
		ident = callee.Sel
	default:
		return nil
	}
	position := r.fset.Position(call.Pos())
	rel, _ := filepath.Rel(r.root, position.Filename)
	record := []any{filepath.ToSlash(rel), position.Line, ident.Name, "", "", false, []string{}}
	decide := func(where, target string) []any {
		record[3], record[4] = where, target
		return record
	}
	if tv, ok := info.Types[call.Fun]; ok {
		if tv.IsType() {
			return decide("out", "conversion to "+tv.Type.String())
		}
		if tv.IsBuiltin() {
			return decide("out", "builtin "+ident.Name)
		}
	}
	var object types.Object
	if selector, ok := fun.(*ast.SelectorExpr); ok {
		if selection := info.Selections[selector]; selection != nil {
			object = selection.Obj()
			if fn, ok := object.(*types.Func); ok && selection.Kind() == types.MethodVal {
				if _, isInterface := selection.Recv().Underlying().(*types.Interface); isInterface {
					record[5] = true
					record[6] = r.implementations(fn, selection.Recv())
				}
			}
		}
	}
	if object == nil {
		object = info.Uses[ident]
	}
	switch object := object.(type) {
	case *types.Func:
		object = object.Origin()
		if object.Pkg() == nil || !r.inside(object.Pos()) {
			return decide("out", object.FullName())
		}
		return decide("in", r.where(object.Pos(), object.Name()))
	case *types.Var:
		return decide("out", "function value "+object.Name())
	case nil:
		return record
	default:
		return decide("out", fmt.Sprintf("%T %s", object, object.Name()))
	}
}

// implementations: the methods of DIR's named types that implement the interface `recv` whose
// method `fn` is called.
func (r *resolver) implementations(fn *types.Func, recv types.Type) []string {
	fn = fn.Origin()
	if found, ok := r.impls[fn]; ok {
		return found
	}
	iface, _ := recv.Underlying().(*types.Interface)
	found := []string{}
	if iface != nil {
		seen := map[string]bool{}
		for _, named := range r.named {
			if named.TypeParams().Len() > 0 {
				continue // a generic type implements only once instantiated
			}
			for _, t := range []types.Type{named, types.NewPointer(named)} {
				if !types.Implements(t, iface) {
					continue
				}
				object, _, _ := types.LookupFieldOrMethod(t, true, fn.Pkg(), fn.Name())
				if method, ok := object.(*types.Func); ok && r.inside(method.Pos()) {
					where := r.where(method.Pos(), method.Name())
					if !seen[where] {
						seen[where] = true
						found = append(found, where)
					}
				}
				break
			}
		}
	}
	sort.Strings(found)
	r.impls[fn] = found
	return found
}
