package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"golang.org/x/tools/go/packages"
)

// sourcePackage is one loaded Go package with the comment facts types alone do not carry.
type sourcePackage struct {
	pkg       *packages.Package
	api       bool // every API type of it becomes a definition
	docTags   commentTags
	typeDocs  map[string][]string      // type name -> doc comment lines
	fieldDocs map[token.Pos][]string   // field (or embedded type) position -> doc lines
	methods   map[string]*ast.FuncDecl // "Type.Method" -> declaration
	proto     *protoFile               // nil when the package has no generated.proto
}

// universe is every loaded package, with the enum values declared across all of them.
type universe struct {
	packages map[string]*sourcePackage
	enums    map[*types.TypeName][]string
	protos   *protoCatalog
	// modules maps each source module path to the version the packages were read at.
	modules map[string]string
}

func loadUniverse() (*universe, error) {
	config := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedImports | packages.NeedDeps | packages.NeedModule,
	}
	patterns := append(append([]string{}, apiPackagePatterns...), supportPackages...)
	loaded, err := packages.Load(config, patterns...)
	if err != nil {
		return nil, err
	}
	u := &universe{
		packages: map[string]*sourcePackage{},
		enums:    map[*types.TypeName][]string{},
		protos:   newProtoCatalog(),
		modules:  map[string]string{},
	}
	support := map[string]bool{}
	for _, path := range supportPackages {
		support[path] = true
	}
	for _, pkg := range loaded {
		if len(pkg.Errors) > 0 {
			return nil, fmt.Errorf("loading %s: %v", pkg.PkgPath, pkg.Errors)
		}
		if !support[pkg.PkgPath] && !versionPackage(pkg.PkgPath) {
			continue
		}
		source, err := indexPackage(pkg)
		if err != nil {
			return nil, err
		}
		source.api = !support[pkg.PkgPath]
		if pkg.Module != nil {
			u.modules[pkg.Module.Path] = pkg.Module.Version
		}
		u.packages[pkg.PkgPath] = source
		if source.proto != nil {
			u.protos.add(source.proto)
		}
	}
	u.collectEnums()
	return u, nil
}

func indexPackage(pkg *packages.Package) (*sourcePackage, error) {
	source := &sourcePackage{
		pkg:       pkg,
		docTags:   commentTags{},
		typeDocs:  map[string][]string{},
		fieldDocs: map[token.Pos][]string{},
		methods:   map[string]*ast.FuncDecl{},
	}
	for _, file := range pkg.Syntax {
		// Package markers sit in comments above the package clause, often split from it by a
		// blank line (so not in file.Doc).
		for _, group := range file.Comments {
			if group.End() >= file.Package {
				break
			}
			for name, values := range extractTags(commentLines(group)) {
				source.docTags[name] = append(source.docTags[name], values...)
			}
		}
		for _, decl := range file.Decls {
			switch decl := decl.(type) {
			case *ast.GenDecl:
				indexTypeDecl(source, decl)
			case *ast.FuncDecl:
				if receiver := receiverTypeName(decl); receiver != "" {
					source.methods[receiver+"."+decl.Name.Name] = decl
				}
			}
		}
	}
	if len(pkg.GoFiles) > 0 {
		protoPath := filepath.Join(filepath.Dir(pkg.GoFiles[0]), "generated.proto")
		if _, err := os.Stat(protoPath); err == nil {
			proto, err := readProtoFile(protoPath)
			if err != nil {
				return nil, err
			}
			source.proto = proto
		}
	}
	return source, nil
}

func indexTypeDecl(source *sourcePackage, decl *ast.GenDecl) {
	if decl.Tok != token.TYPE {
		return
	}
	for _, spec := range decl.Specs {
		typeSpec := spec.(*ast.TypeSpec)
		var declDoc *ast.CommentGroup
		if len(decl.Specs) == 1 {
			declDoc = decl.Doc
		}
		source.typeDocs[typeSpec.Name.Name] = commentLines(typeSpec.Doc, declDoc)
		structType, isStruct := typeSpec.Type.(*ast.StructType)
		if !isStruct {
			continue
		}
		for _, field := range structType.Fields.List {
			lines := commentLines(field.Doc)
			for _, name := range field.Names {
				source.fieldDocs[name.Pos()] = lines
			}
			if len(field.Names) == 0 {
				for _, pos := range embeddedPositions(field.Type) {
					source.fieldDocs[pos] = lines
				}
			}
		}
	}
}

// embeddedPositions are the positions go/types may report for an embedded field: the type
// expression and its final identifier.
func embeddedPositions(expr ast.Expr) []token.Pos {
	positions := []token.Pos{expr.Pos()}
	switch e := expr.(type) {
	case *ast.StarExpr:
		positions = append(positions, embeddedPositions(e.X)...)
	case *ast.SelectorExpr:
		positions = append(positions, e.Sel.Pos())
	}
	return positions
}

func receiverTypeName(decl *ast.FuncDecl) string {
	if decl.Recv == nil || len(decl.Recv.List) != 1 {
		return ""
	}
	expr := decl.Recv.List[0].Type
	if star, ok := expr.(*ast.StarExpr); ok {
		expr = star.X
	}
	if ident, ok := expr.(*ast.Ident); ok {
		return ident.Name
	}
	return ""
}

// collectEnums finds `+enum` string types and their values from the constants of every
// loaded package, as the reference's generator does (values sorted, duplicates once).
func (u *universe) collectEnums() {
	for _, source := range u.packages {
		scope := source.pkg.Types.Scope()
		for _, name := range scope.Names() {
			typeName, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || typeName.IsAlias() {
				continue
			}
			basic, isBasic := typeName.Type().Underlying().(*types.Basic)
			if !isBasic || basic.Kind() != types.String {
				continue
			}
			if extractTags(source.typeDocs[name]).has("enum") {
				u.enums[typeName] = []string{}
			}
		}
	}
	// An enum type that another package re-exports by a type alias without +enum in the
	// alias's comment (admissionregistration v1beta1's ReinvocationPolicyType =
	// v1.ReinvocationPolicyType) is no enum in the reference's documents: its generator reads the
	// type's comment from the alias. Aliases that keep +enum (OperationType) keep the enum.
	for _, source := range u.packages {
		scope := source.pkg.Types.Scope()
		for _, name := range scope.Names() {
			typeName, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || !typeName.IsAlias() || extractTags(source.typeDocs[name]).has("enum") {
				continue
			}
			named, isNamed := types.Unalias(typeName.Type()).(*types.Named)
			if isNamed && named.Obj().Pkg() != typeName.Pkg() {
				delete(u.enums, named.Obj())
			}
		}
	}
	for _, source := range u.packages {
		scope := source.pkg.Types.Scope()
		for _, name := range scope.Names() {
			value, ok := scope.Lookup(name).(*types.Const)
			if !ok {
				continue
			}
			named, isNamed := value.Type().(*types.Named)
			if !isNamed {
				continue
			}
			values, isEnum := u.enums[named.Obj()]
			if !isEnum || value.Val().Kind() != constant.String {
				continue
			}
			text := constant.StringVal(value.Val())
			if !contains(values, text) {
				u.enums[named.Obj()] = append(values, text)
			}
		}
	}
	for typeName, values := range u.enums {
		sort.Slice(values, func(i, j int) bool { return strconv.Quote(values[i]) < strconv.Quote(values[j]) })
		u.enums[typeName] = values
	}
}

func contains(values []string, value string) bool {
	for _, v := range values {
		if v == value {
			return true
		}
	}
	return false
}

func (u *universe) packageOf(obj types.Object) (*sourcePackage, error) {
	if obj.Pkg() == nil {
		return nil, fmt.Errorf("%s has no package", obj.Name())
	}
	source := u.packages[obj.Pkg().Path()]
	if source == nil {
		return nil, fmt.Errorf("%s.%s: package not loaded (add it to supportPackages)", obj.Pkg().Path(), obj.Name())
	}
	return source, nil
}

// docsOf are the doc comment lines of a named type and its package, or none when the type's
// package was not loaded (only types that become definitions need their package loaded).
func (u *universe) docsOf(named *types.Named) (lines []string, source *sourcePackage) {
	if named.Obj().Pkg() == nil {
		return nil, nil
	}
	source = u.packages[named.Obj().Pkg().Path()]
	if source == nil {
		return nil, nil
	}
	return source.typeDocs[named.Obj().Name()], source
}
