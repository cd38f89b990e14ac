package main

import (
	"go/ast"
)

// metaRegistration is how the reference registers meta/v1 kinds into every API group
// (metav1.AddToGroupVersion): some under the legacy "" v1 group only ("unversioned"), some in
// every served group version. Both are read from that function's body, so that the
// group-version-kind lists of these types follow the module.
type metaRegistration struct {
	unversioned       map[string]bool
	everyGroupVersion map[string]bool
}

const metaV1Path = "k8s.io/apimachinery/pkg/apis/meta/v1"

func readMetaRegistration(source *sourcePackage) metaRegistration {
	registration := metaRegistration{unversioned: map[string]bool{}, everyGroupVersion: map[string]bool{}}
	lists := map[string][]string{} // package-level []runtime.Object vars -> type names
	var addToGroupVersion *ast.FuncDecl
	for _, file := range source.pkg.Syntax {
		for _, decl := range file.Decls {
			switch decl := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					if value, ok := spec.(*ast.ValueSpec); ok && len(value.Names) == 1 && len(value.Values) == 1 {
						if literal, ok := value.Values[0].(*ast.CompositeLit); ok {
							lists[value.Names[0].Name] = addressedTypes(literal.Elts)
						}
					}
				}
			case *ast.FuncDecl:
				if decl.Recv == nil && decl.Name.Name == "AddToGroupVersion" {
					addToGroupVersion = decl
				}
			}
		}
	}
	if addToGroupVersion == nil {
		return registration
	}
	ast.Inspect(addToGroupVersion.Body, func(node ast.Node) bool {
		call, ok := node.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			return true
		}
		selector, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		names := addressedTypes(call.Args[1:])
		if call.Ellipsis.IsValid() {
			if ident, ok := call.Args[len(call.Args)-1].(*ast.Ident); ok {
				names = append(names, lists[ident.Name]...)
			}
		}
		first, _ := call.Args[0].(*ast.Ident)
		switch {
		case selector.Sel.Name == "AddUnversionedTypes" && first != nil && first.Name == "Unversioned":
			mark(registration.unversioned, names)
		case selector.Sel.Name == "AddKnownTypes" && first != nil && first.Name == "groupVersion":
			mark(registration.everyGroupVersion, names)
		case selector.Sel.Name == "AddKnownTypeWithName" && calls(call.Args[0], "groupVersion", "WithKind"):
			mark(registration.everyGroupVersion, names)
		}
		return true
	})
	return registration
}

func mark(set map[string]bool, names []string) {
	for _, name := range names {
		set[name] = true
	}
}

// addressedTypes are the T of `&T{}` expressions.
func addressedTypes(exprs []ast.Expr) []string {
	var names []string
	for _, expr := range exprs {
		unary, ok := expr.(*ast.UnaryExpr)
		if !ok {
			continue
		}
		if literal, ok := unary.X.(*ast.CompositeLit); ok {
			if ident, ok := literal.Type.(*ast.Ident); ok {
				names = append(names, ident.Name)
			}
		}
	}
	return names
}

func calls(expr ast.Expr, receiver, method string) bool {
	call, ok := expr.(*ast.CallExpr)
	if !ok {
		return false
	}
	selector, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || selector.Sel.Name != method {
		return false
	}
	ident, ok := selector.X.(*ast.Ident)
	return ok && ident.Name == receiver
}
