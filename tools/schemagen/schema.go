package main

// Schema is one OpenAPI v2 schema as the generator emits it: the subset of fields the
// reference's openapi-gen writes for built-in types, its `x-kubernetes-*` extensions, and the
// project's own protobuf extensions. Descriptions are left out on purpose.
type Schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	// Default is any JSON value; "" and 0 and false are real defaults, only nil means none.
	Default any `json:"default,omitempty"`

	GroupVersionKinds []GroupVersionKind `json:"x-kubernetes-group-version-kind,omitempty"`
	// EveryGroupVersion marks meta/v1 kinds the reference registers in every group version
	// (DeleteOptions, WatchEvent, ...): their x-kubernetes-group-version-kind list in a served
	// document names each group version of the reference's scheme, not only the "" v1 entry
	// emitted here.
	EveryGroupVersion bool     `json:"x-capstan-every-group-version,omitempty"`
	ListMapKeys       []string `json:"x-kubernetes-list-map-keys,omitempty"`
	ListType          string   `json:"x-kubernetes-list-type,omitempty"`
	MapType           string   `json:"x-kubernetes-map-type,omitempty"`
	// PatchMergeKey and PatchStrategy are a string for one marker value, a list for several,
	// exactly as the reference emits them.
	PatchMergeKey any     `json:"x-kubernetes-patch-merge-key,omitempty"`
	PatchStrategy any     `json:"x-kubernetes-patch-strategy,omitempty"`
	Unions        []Union `json:"x-kubernetes-unions,omitempty"`

	// OpenAPIV3OneOf is the type list a type offers for OpenAPI v3 (`oneOf` there), from its
	// OpenAPIV3OneOfTypes method (Quantity, IntOrString).
	OpenAPIV3OneOf []string `json:"x-capstan-openapi-v3-one-of,omitempty"`
	// Protobuf is how this property is written in the reference's protobuf encoding.
	Protobuf *ProtobufField `json:"x-capstan-protobuf,omitempty"`
	// ProtobufInline lists embedded structs whose fields are inlined into this object's JSON
	// but written as one nested message in protobuf.
	ProtobufInline []ProtobufInline `json:"x-capstan-protobuf-inline,omitempty"`
}

type GroupVersionKind struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// ProtobufField describes one protobuf field. Type is a proto scalar name ("string", "int64",
// "bytes", ...) or the definition name of a message.
type ProtobufField struct {
	Tag      int          `json:"tag"`
	Wire     string       `json:"wire"`
	Type     string       `json:"type,omitempty"`
	Name     string       `json:"name,omitempty"` // proto field name, only where it differs from the JSON name
	Repeated bool         `json:"repeated,omitempty"`
	Packed   bool         `json:"packed,omitempty"`
	Map      *ProtobufMap `json:"map,omitempty"`
	CastType string       `json:"casttype,omitempty"`
	// Pointer: the Go member is a pointer, so a zero value on the wire is set, not absent.
	Pointer bool `json:"pointer,omitempty"`
	// OmitEmpty: the Go member's JSON tag says omitempty, so the reference's JSON leaves out
	// its zero value, which protobuf carries all the same (every non-pointer member is written).
	OmitEmpty bool `json:"omitempty,omitempty"`
}

// ProtobufMap is a map field: repeated entry messages with the key at field 1 and the value
// at field 2.
type ProtobufMap struct {
	Key   ProtobufMapPart `json:"key"`
	Value ProtobufMapPart `json:"value"`
}

type ProtobufMapPart struct {
	Type string `json:"type"`
	Wire string `json:"wire"`
}

type ProtobufInline struct {
	Tag  int    `json:"tag"`
	Wire string `json:"wire"`
	Type string `json:"type"`
}

// ProtobufMessage lists the fields of a message whose protobuf form cannot be read off a
// definition's properties: types with a custom JSON form (Quantity, Time, IntOrString,
// RawExtension, ...) and wrapper messages the JSON form does not have (Verbs, ExtraValue).
type ProtobufMessage struct {
	Fields []ProtobufMessageField `json:"fields"`
}

type ProtobufMessageField struct {
	Name string `json:"name"`
	ProtobufField
}

// Output is the whole generated document.
type Output struct {
	Metadata         OutputMetadata              `json:"metadata"`
	Definitions      map[string]*Schema          `json:"definitions"`
	ProtobufMessages map[string]*ProtobufMessage `json:"protobufMessages"`
}

type OutputMetadata struct {
	Generator string            `json:"generator"`
	Release   string            `json:"release"`
	Modules   map[string]string `json:"modules"`
}
