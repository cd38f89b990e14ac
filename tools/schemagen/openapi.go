package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// generator turns Go API types into OpenAPI v2 definitions, following the rules of the
// reference's openapi-gen (k8s.io/kube-openapi/pkg/generators) for the shapes built-in types
// use, and failing loudly on shapes it was not written for.
type generator struct {
	u           *universe
	definitions map[string]*Schema
	pending     []*types.Named
	queued      map[string]bool
	// metaRegistration is read once, when the first meta/v1 type is defined.
	metaRegistration *metaRegistration
}

func newGenerator(u *universe) *generator {
	return &generator{
		u:           u,
		definitions: map[string]*Schema{},
		queued:      map[string]bool{},
	}
}

func (g *generator) generate() error {
	paths := make([]string, 0, len(g.u.packages))
	for path, source := range g.u.packages {
		if source.api {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	for _, path := range paths {
		source := g.u.packages[path]
		scope := source.pkg.Types.Scope()
		for _, name := range scope.Names() {
			typeName, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || typeName.IsAlias() || !typeName.Exported() {
				continue
			}
			named, isNamed := typeName.Type().(*types.Named)
			if !isNamed || !isStruct(named) || !openAPIIncluded(source, name) || excludedTypes[g.nameOf(named)] {
				continue
			}
			g.enqueue(named)
		}
	}
	for len(g.pending) > 0 {
		named := g.pending[0]
		g.pending = g.pending[1:]
		if err := g.define(named); err != nil {
			return err
		}
	}
	return nil
}

// openAPIIncluded mirrors openapi-gen's type filter: a package-wide `+k8s:openapi-gen=true`
// unless the type opts out, otherwise only types that opt in.
func openAPIIncluded(source *sourcePackage, typeName string) bool {
	typeTags := extractTags(source.typeDocs[typeName])
	if source.docTags.openAPIGen("true") {
		return !typeTags.openAPIGen("false")
	}
	return typeTags.openAPIGen("true")
}

// excludedTypes are API-package types that no served document or encoding uses and whose
// shape this generator does not model.
var excludedTypes = map[string]bool{
	// The watch machinery's in-memory event: holds a runtime.Object interface.
	"io.k8s.apimachinery.pkg.apis.meta.v1.InternalEvent": true,
}

func isStruct(named *types.Named) bool {
	_, ok := named.Underlying().(*types.Struct)
	return ok
}

func (g *generator) nameOf(named *types.Named) string {
	return definitionName(named.Obj().Pkg().Path(), named.Obj().Name())
}

func (g *generator) enqueue(named *types.Named) string {
	name := g.nameOf(named)
	if !g.queued[name] {
		g.queued[name] = true
		g.pending = append(g.pending, named)
	}
	return name
}

func (g *generator) define(named *types.Named) error {
	source, err := g.u.packageOf(named.Obj())
	if err != nil {
		return err
	}
	typeName := named.Obj().Name()
	name := g.nameOf(named)
	typeTags := extractTags(source.typeDocs[typeName])

	if custom, err := g.customSchema(source, named); err != nil {
		return err
	} else if custom != nil {
		if err := applyExtensions(custom, typeTags); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		g.definitions[name] = custom
		return nil
	}

	definition := &Schema{Type: "object", Properties: map[string]*Schema{}}
	members := memberWalk{owner: named, withProtobuf: true}
	if err := g.addMembers(definition, members); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(definition.Properties) == 0 {
		definition.Properties = nil
	}
	if definition.Unions, err = g.unionsOf(named); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := applyExtensions(definition, typeTags); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	g.applyGroupVersionKind(definition, source, named)
	g.definitions[name] = definition
	return nil
}

// memberWalk is one struct whose fields are being added to a definition: the definition's
// own type, or an inlined embedded struct (whose fields then carry no protobuf facts of their
// own, since protobuf writes the embedded struct as one nested message or not at all).
type memberWalk struct {
	owner        *types.Named
	withProtobuf bool
}

func (g *generator) addMembers(definition *Schema, walk memberWalk) error {
	source, err := g.u.packageOf(walk.owner.Obj())
	if err != nil {
		return err
	}
	structType := walk.owner.Underlying().(*types.Struct)
	for i := 0; i < structType.NumFields(); i++ {
		field := structType.Field(i)
		structTag := reflect.StructTag(structType.Tag(i))
		docs := source.fieldDocs[field.Pos()]
		tags := extractTags(docs)
		if tags.openAPIGen("false") {
			continue
		}
		jsonParts := jsonTagParts(structTag)
		if len(jsonParts) > 1 && jsonParts[1] == "inline" {
			if err := g.addInlineMember(definition, walk, field, structTag); err != nil {
				return err
			}
			continue
		}
		name := field.Name()
		if len(jsonParts) > 0 {
			name = jsonParts[0]
		}
		if name == "" || name == "-" || !field.Exported() {
			continue
		}
		if _, duplicate := definition.Properties[name]; duplicate {
			return fmt.Errorf("property %s appears twice", name)
		}
		optional, err := memberOptional(tags, structTag)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !optional {
			definition.Required = append(definition.Required, name)
		}
		property, err := g.property(field, propertyFacts{docs: docs, tags: tags, jsonParts: jsonParts, structTag: structTag, source: source})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if walk.withProtobuf {
			protobuf, err := g.protobufField(walk.owner, structTag)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if protobuf != nil && protobuf.Name == name {
				protobuf.Name = ""
			}
			if protobuf != nil {
				_, protobuf.Pointer = types.Unalias(field.Type()).(*types.Pointer)
				protobuf.OmitEmpty = strings.Contains(structTag.Get("json"), "omitempty")
			}
			property.Protobuf = protobuf
		}
		definition.Properties[name] = property
	}
	return nil
}

func (g *generator) addInlineMember(definition *Schema, walk memberWalk, field *types.Var, structTag reflect.StructTag) error {
	embedded, ok := derefPointer(field.Type()).(*types.Named)
	if !ok || !isStruct(embedded) {
		return fmt.Errorf("inline member %s is not a named struct", field.Name())
	}
	protoTag := structTag.Get("protobuf")
	if walk.withProtobuf && protoTag != "" && protoTag != "-" {
		parsed, err := parseProtobufTag(protoTag)
		if err != nil {
			return err
		}
		definition.ProtobufInline = append(definition.ProtobufInline, ProtobufInline{
			Tag: parsed.number, Wire: parsed.wire, Type: g.enqueue(embedded),
		})
	}
	return g.addMembers(definition, memberWalk{owner: embedded, withProtobuf: false})
}

func derefPointer(t types.Type) types.Type {
	for {
		t = types.Unalias(t)
		pointer, ok := t.(*types.Pointer)
		if !ok {
			return t
		}
		t = pointer.Elem()
	}
}

// memberOptional is openapi-gen's rule: `+optional` or `+required` decide, else `omitempty`.
func memberOptional(tags commentTags, structTag reflect.StructTag) (bool, error) {
	optional, required := tags.has("optional"), tags.has("required")
	switch {
	case optional && required:
		return false, fmt.Errorf("both +optional and +required")
	case required:
		return false, nil
	case optional:
		return true, nil
	}
	return strings.Contains(structTag.Get("json"), "omitempty"), nil
}

type propertyFacts struct {
	docs      []string
	tags      commentTags
	jsonParts []string
	structTag reflect.StructTag
	source    *sourcePackage
}

func (g *generator) property(field *types.Var, facts propertyFacts) (*Schema, error) {
	property := &Schema{}
	if err := applyExtensions(property, facts.tags); err != nil {
		return nil, err
	}
	if len(facts.jsonParts) > 1 && facts.jsonParts[1] == "string" {
		property.Type = "string"
		return property, nil
	}
	omitEmpty := strings.Contains(facts.structTag.Get("json"), "omitempty")
	value, err := g.defaultValue(defaultQuery{comments: facts.docs, commentPackage: facts.source, t: field.Type(), omitEmpty: omitEmpty})
	if err != nil {
		return nil, err
	}
	property.Default = value
	if err := g.describeType(property, field.Type()); err != nil {
		return nil, err
	}
	return property, nil
}

// describeType fills type, format, enum, items, additionalProperties or $ref for a Go type.
func (g *generator) describeType(schema *Schema, t types.Type) error {
	resolved := resolveAliasAndPointer(t)
	if typeName, format, ok := builtinTypeFormat(resolved); ok {
		schema.Type, schema.Format = typeName, format
		schema.Enum = g.enumValues(t)
		return nil
	}
	switch resolved := resolved.(type) {
	case *types.Map:
		key, isBasic := resolveAliasAndPointer(resolved.Key()).(*types.Basic)
		if !isBasic || key.Kind() != types.String {
			return fmt.Errorf("map key %s is not a string", resolved.Key())
		}
		schema.Type = "object"
		element, err := g.elementSchema(resolved.Elem())
		if err != nil {
			return err
		}
		schema.AdditionalProperties = element
	case *types.Slice:
		schema.Type = "array"
		element, err := g.elementSchema(resolved.Elem())
		if err != nil {
			return err
		}
		schema.Items = element
	case *types.Array:
		schema.Type = "array"
		element, err := g.elementSchema(resolved.Elem())
		if err != nil {
			return err
		}
		schema.Items = element
	case *types.Named:
		if !isStruct(resolved) {
			return fmt.Errorf("cannot describe %s", resolved)
		}
		schema.Ref = "#/definitions/" + g.enqueue(resolved)
	default:
		return fmt.Errorf("cannot describe %s", resolved)
	}
	return nil
}

// elementSchema is the schema of a slice item or map value; openapi-gen gives elements the
// default a non-omitempty member of their type would get.
func (g *generator) elementSchema(t types.Type) (*Schema, error) {
	element := &Schema{}
	query := defaultQuery{t: t, omitEmpty: false}
	if named, ok := types.Unalias(t).(*types.Named); ok {
		query.comments, query.commentPackage = g.u.docsOf(named)
	}
	value, err := g.defaultValue(query)
	if err != nil {
		return nil, err
	}
	element.Default = value
	if err := g.describeType(element, t); err != nil {
		return nil, err
	}
	return element, nil
}

// resolveAliasAndPointer follows pointers and named non-struct types (what the reference's
// type model calls aliases) down to the type that decides the schema.
func resolveAliasAndPointer(t types.Type) types.Type {
	for {
		t = types.Unalias(t)
		switch current := t.(type) {
		case *types.Pointer:
			t = current.Elem()
			continue
		case *types.Named:
			switch current.Underlying().(type) {
			case *types.Struct, *types.Interface:
				return current
			}
			t = current.Underlying()
			continue
		}
		return t
	}
}

// builtinTypeFormat is kube-openapi's table of Go builtins with an OpenAPI type and format.
func builtinTypeFormat(t types.Type) (typeName, format string, ok bool) {
	switch t := t.(type) {
	case *types.Basic:
		switch t.Kind() {
		case types.Uint, types.Uint16, types.Int, types.Int16, types.Int32:
			return "integer", "int32", true
		case types.Uint8, types.Int8:
			return "integer", "byte", true
		case types.Uint32, types.Uint64, types.Int64:
			return "integer", "int64", true
		case types.Float64:
			return "number", "double", true
		case types.Float32:
			return "number", "float", true
		case types.Bool:
			return "boolean", "", true
		case types.String:
			return "string", "", true
		}
	case *types.Slice:
		if element, isBasic := t.Elem().(*types.Basic); isBasic && element.Kind() == types.Uint8 {
			return "string", "byte", true
		}
	case *types.Interface:
		if t.Empty() {
			return "object", "", true
		}
	}
	return "", "", false
}

func builtinZeroValue(t *types.Basic) (any, bool) {
	switch {
	case t.Info()&types.IsNumeric != 0:
		return 0, true
	case t.Kind() == types.Bool:
		return false, true
	case t.Kind() == types.String:
		return "", true
	}
	return nil, false
}

func (g *generator) enumValues(t types.Type) []string {
	t = derefPointer(t)
	named, ok := t.(*types.Named)
	if !ok {
		return nil
	}
	return g.u.enums[named.Obj()]
}

// applyExtensions emits the `x-kubernetes-*` extensions of a member's or type's markers.
func applyExtensions(schema *Schema, tags commentTags) error {
	for _, value := range tags.openAPIGenValues() {
		if strings.HasPrefix(value, "x-kubernetes-") {
			return fmt.Errorf("extension marker %q is not handled by this generator", value)
		}
	}
	oneOrMany := func(values []string) any {
		if len(values) == 1 {
			return values[0]
		}
		return values
	}
	single := func(marker string) (string, error) {
		values := tags[marker]
		if len(values) != 1 {
			return "", fmt.Errorf("+%s given %d times", marker, len(values))
		}
		return values[0], nil
	}
	var err error
	if values, found := tags["patchMergeKey"]; found {
		schema.PatchMergeKey = oneOrMany(values)
	}
	if values, found := tags["patchStrategy"]; found {
		schema.PatchStrategy = oneOrMany(values)
	}
	if values, found := tags["listMapKey"]; found {
		schema.ListMapKeys = values
	}
	if tags.has("listType") {
		if schema.ListType, err = single("listType"); err != nil {
			return err
		}
	}
	for _, marker := range []string{"mapType", "structType"} {
		if tags.has(marker) {
			if schema.MapType, err = single(marker); err != nil {
				return err
			}
		}
	}
	if tags.has("validations") {
		return fmt.Errorf("+validations markers are not handled by this generator")
	}
	return nil
}

type defaultQuery struct {
	comments       []string
	commentPackage *sourcePackage
	t              types.Type
	omitEmpty      bool
}

// defaultValue is openapi-gen's default: a `+default=` marker on the member or on its type,
// and the value non-pointer structs (`{}`) and non-omitempty builtins (their zero value)
// must default to; the two must agree.
func (g *generator) defaultValue(query defaultQuery) (any, error) {
	marked, err := g.defaultFromComments(query)
	if err != nil {
		return nil, err
	}
	enforced := g.enforcedDefault(query.t, query.omitEmpty)
	if enforced == nil {
		return marked, nil
	}
	if marked != nil && !reflect.DeepEqual(normalizeJSON(marked), normalizeJSON(enforced)) {
		return nil, fmt.Errorf("default %v contradicts the enforced default %v", marked, enforced)
	}
	return enforced, nil
}

func normalizeJSON(value any) any {
	encoded, _ := json.Marshal(value)
	var decoded any
	_ = json.Unmarshal(encoded, &decoded)
	return decoded
}

var defaultReference = regexp.MustCompile(`^ref\(([^"]+)\)$`)

func (g *generator) defaultFromComments(query defaultQuery) (any, error) {
	comments, source, t := query.comments, query.commentPackage, query.t
	var marker string
	for {
		values := extractTags(comments)["default"]
		if len(values) > 1 {
			return nil, fmt.Errorf("+default given %d times", len(values))
		}
		if len(values) == 1 {
			marker = values[0]
		}
		if t == nil || marker != "" {
			break
		}
		comments, t = nil, types.Unalias(t)
		switch current := t.(type) {
		case *types.Pointer:
			t = current.Elem()
		case *types.Named:
			comments, source = g.u.docsOf(current)
			if isStruct(current) {
				t = nil
			} else {
				t = current.Underlying()
			}
		default:
			t = nil
		}
	}
	if marker == "" {
		return nil, nil
	}
	if match := defaultReference.FindStringSubmatch(marker); match != nil {
		return constantValue(source, match[1])
	}
	var value any
	if err := json.Unmarshal([]byte(marker), &value); err != nil {
		return nil, fmt.Errorf("default %q: %w", marker, err)
	}
	return value, nil
}

func constantValue(source *sourcePackage, name string) (any, error) {
	if source == nil || strings.Contains(name, ".") {
		return nil, fmt.Errorf("default reference %q: only same-package constants are handled", name)
	}
	value, ok := source.pkg.Types.Scope().Lookup(name).(*types.Const)
	if !ok {
		return nil, fmt.Errorf("default reference %q: no such constant in %s", name, source.pkg.PkgPath)
	}
	switch value.Val().Kind() {
	case constant.String:
		return constant.StringVal(value.Val()), nil
	case constant.Bool:
		return constant.BoolVal(value.Val()), nil
	case constant.Int:
		number, _ := constant.Int64Val(value.Val())
		return number, nil
	}
	return nil, fmt.Errorf("default reference %q: unsupported constant kind", name)
}

// enforcedDefault is openapi-gen's mustEnforceDefault.
func (g *generator) enforcedDefault(t types.Type, omitEmpty bool) any {
	t = types.Unalias(t)
	if customUnmarshalling(t) {
		return nil
	}
	switch current := t.(type) {
	case *types.Named:
		structType, ok := current.Underlying().(*types.Struct)
		if !ok {
			if _, isInterface := current.Underlying().(*types.Interface); isInterface {
				return nil
			}
			return g.enforcedDefault(current.Underlying(), omitEmpty)
		}
		if structType.NumFields() == 1 && structType.Field(0).Embedded() {
			return g.enforcedDefault(structType.Field(0).Type(), omitEmpty)
		}
		return map[string]any{}
	case *types.Basic:
		if !omitEmpty {
			zero, _ := builtinZeroValue(current)
			return zero
		}
	}
	return nil
}

// customUnmarshalling: types that read their own JSON get no enforced default, since Go's
// decoder hands them `null`.
func customUnmarshalling(t types.Type) bool {
	switch current := t.(type) {
	case *types.Pointer:
		named, ok := types.Unalias(current.Elem()).(*types.Named)
		if !ok {
			return false
		}
		method := declaredMethod(named, "UnmarshalJSON")
		if method == nil {
			return false
		}
		_, pointerReceiver := method.Type().(*types.Signature).Recv().Type().(*types.Pointer)
		return pointerReceiver
	case *types.Named:
		return isStruct(current) && declaredMethod(current, "UnmarshalJSON") != nil
	}
	return false
}

func declaredMethod(named *types.Named, name string) *types.Func {
	for i := 0; i < named.NumMethods(); i++ {
		if named.Method(i).Name() == name {
			return named.Method(i)
		}
	}
	return nil
}

// customSchema handles types that give their own OpenAPI type and format through
// OpenAPISchemaType/OpenAPISchemaFormat methods; the values are read from the methods'
// return statements.
func (g *generator) customSchema(source *sourcePackage, named *types.Named) (*Schema, error) {
	typeName := named.Obj().Name()
	if declaredMethod(named, "OpenAPIDefinition") != nil || declaredMethod(named, "OpenAPIV3Definition") != nil {
		return nil, fmt.Errorf("%s has an OpenAPIDefinition method, which this generator does not read", typeName)
	}
	if declaredMethod(named, "OpenAPISchemaType") == nil || declaredMethod(named, "OpenAPISchemaFormat") == nil {
		return nil, nil
	}
	schemaTypes, err := returnedStrings(source, typeName+".OpenAPISchemaType")
	if err != nil {
		return nil, err
	}
	format, err := returnedStrings(source, typeName+".OpenAPISchemaFormat")
	if err != nil {
		return nil, err
	}
	custom := &Schema{}
	switch len(schemaTypes) {
	case 0:
	case 1:
		custom.Type = schemaTypes[0]
	default:
		return nil, fmt.Errorf("%s: several OpenAPI types", typeName)
	}
	if len(format) == 1 {
		custom.Format = format[0]
	}
	if declaredMethod(named, "OpenAPIV3OneOfTypes") != nil {
		if custom.OpenAPIV3OneOf, err = returnedStrings(source, typeName+".OpenAPIV3OneOfTypes"); err != nil {
			return nil, err
		}
	}
	return custom, nil
}

// returnedStrings reads the constant result of a one-statement method: `nil`, a string
// literal, or a []string literal.
func returnedStrings(source *sourcePackage, method string) ([]string, error) {
	decl := source.methods[method]
	if decl == nil || decl.Body == nil {
		return nil, fmt.Errorf("%s: method body not found", method)
	}
	for _, statement := range decl.Body.List {
		ret, ok := statement.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			continue
		}
		switch result := ret.Results[0].(type) {
		case *ast.Ident:
			if result.Name == "nil" {
				return nil, nil
			}
		case *ast.BasicLit:
			value, err := unquote(result)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", method, err)
			}
			if value == "" {
				return nil, nil
			}
			return []string{value}, nil
		case *ast.CompositeLit:
			var values []string
			for _, element := range result.Elts {
				literal, ok := element.(*ast.BasicLit)
				if !ok {
					return nil, fmt.Errorf("%s: non-literal element", method)
				}
				value, err := unquote(literal)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", method, err)
				}
				values = append(values, value)
			}
			return values, nil
		}
	}
	return nil, fmt.Errorf("%s: no literal return statement", method)
}

func unquote(literal *ast.BasicLit) (string, error) {
	if literal.Kind != token.STRING {
		return "", fmt.Errorf("literal %s is not a string", literal.Value)
	}
	return strconv.Unquote(literal.Value)
}

// packageGroup is the API group of a package: its `+groupName` marker, else the GroupName
// constant its register.go declares (some packages have only the latter).
func packageGroup(source *sourcePackage) (string, bool) {
	if groups := source.docTags["groupName"]; len(groups) > 0 {
		return groups[0], true
	}
	if value, ok := source.pkg.Types.Scope().Lookup("GroupName").(*types.Const); ok && value.Val().Kind() == constant.String {
		return constant.StringVal(value.Val()), true
	}
	return "", false
}

// applyGroupVersionKind: meta/v1 kinds registered by AddToGroupVersion are kinds of the ""
// v1 group, and those registered in every group version say so (the server knows which
// group versions it serves); other kinds come from inlining TypeMeta.
func (g *generator) applyGroupVersionKind(definition *Schema, source *sourcePackage, named *types.Named) {
	typeName := named.Obj().Name()
	if source.pkg.PkgPath == metaV1Path {
		if g.metaRegistration == nil {
			registration := readMetaRegistration(source)
			g.metaRegistration = &registration
		}
		if g.metaRegistration.unversioned[typeName] || g.metaRegistration.everyGroupVersion[typeName] {
			definition.GroupVersionKinds = []GroupVersionKind{{Group: "", Version: "v1", Kind: typeName}}
			definition.EveryGroupVersion = g.metaRegistration.everyGroupVersion[typeName]
			return
		}
	}
	if kind := g.groupVersionKind(source, named); kind != nil {
		definition.GroupVersionKinds = []GroupVersionKind{*kind}
	}
}

// groupVersionKind: a struct that inlines TypeMeta is a kind of its package's group
// (`+groupName`) and version (the package name).
func (g *generator) groupVersionKind(source *sourcePackage, named *types.Named) *GroupVersionKind {
	structType := named.Underlying().(*types.Struct)
	for i := 0; i < structType.NumFields(); i++ {
		field := structType.Field(i)
		embedded, ok := derefPointer(field.Type()).(*types.Named)
		if !field.Embedded() || !ok {
			continue
		}
		if embedded.Obj().Pkg().Path() != "k8s.io/apimachinery/pkg/apis/meta/v1" || embedded.Obj().Name() != "TypeMeta" {
			continue
		}
		group, found := packageGroup(source)
		if !found {
			return nil
		}
		return &GroupVersionKind{Group: group, Version: path.Base(source.pkg.PkgPath), Kind: named.Obj().Name()}
	}
	return nil
}
