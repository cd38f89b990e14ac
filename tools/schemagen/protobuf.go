package main

import (
	"fmt"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// protobufTag is a parsed `protobuf:"bytes,1,opt,name=metadata,casttype=..."` struct tag.
type protobufTag struct {
	wire     string
	number   int
	packed   bool
	name     string
	castType string
}

func parseProtobufTag(tag string) (protobufTag, error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return protobufTag{}, fmt.Errorf("protobuf tag %q is too short", tag)
	}
	number, err := strconv.Atoi(parts[1])
	if err != nil {
		return protobufTag{}, fmt.Errorf("protobuf tag %q: %w", tag, err)
	}
	parsed := protobufTag{wire: parts[0], number: number}
	// The label (opt/rep/req) is usually third but some tags leave it out; repetition is
	// read from generated.proto instead, since a few tags say "opt" on repeated fields.
	for _, option := range parts[2:] {
		key, value, _ := strings.Cut(option, "=")
		switch key {
		case "name":
			parsed.name = value
		case "casttype":
			parsed.castType = value
		case "packed":
			parsed.packed = true
		}
	}
	return parsed, nil
}

// protobufField describes a member from its struct tags, with the field's type taken from
// the package's generated.proto (the tags do not name message types). Types without a
// generated message (no protobuf form) give nil.
func (g *generator) protobufField(owner *types.Named, structTag reflect.StructTag) (*ProtobufField, error) {
	tag := structTag.Get("protobuf")
	if tag == "" || tag == "-" {
		return nil, nil
	}
	pkgPath := owner.Obj().Pkg().Path()
	fields, found := g.u.protos.message(pkgPath, owner.Obj().Name())
	if !found {
		return nil, nil
	}
	parsed, err := parseProtobufTag(tag)
	if err != nil {
		return nil, err
	}
	var protoField *protoFileField
	for i := range fields {
		if fields[i].number == parsed.number {
			protoField = &fields[i]
		}
	}
	if protoField == nil {
		return nil, fmt.Errorf("protobuf field %d is not in message %s", parsed.number, owner.Obj().Name())
	}
	// The field number and name must agree; repetition is taken from generated.proto, which
	// the reference's marshalling code follows (a few tags say "opt" on repeated fields).
	if protoField.name != parsed.name {
		return nil, fmt.Errorf("protobuf tag %q disagrees with generated.proto field %s", tag, protoField.name)
	}
	field := &ProtobufField{
		Tag: parsed.number, Wire: parsed.wire, Name: parsed.name,
		Repeated: protoField.repeated, Packed: parsed.packed, CastType: parsed.castType,
	}
	// Map entries and message types are not in the struct tags; generated.proto has them.
	described, err := g.describeProtoFileField(g.u.protos.byGoPackage[pkgPath], *protoField)
	field.Type, field.Map = described.Type, described.Map
	// The wire type follows the proto type, as the generated marshallers do: a few struct tags
	// say "bytes" on int32 and bool members.
	field.Wire = described.Wire
	return field, err
}

// protobufMessages lists every message the definitions' protobuf facts refer to that the
// definitions themselves do not describe field for field.
func (g *generator) protobufMessages() (map[string]*ProtobufMessage, error) {
	byName := map[string]struct {
		file    *protoFile
		message string
	}{}
	for _, file := range g.u.protos.byGoPackage {
		for message := range file.messages {
			byName[definitionName(file.goPackage, message)] = struct {
				file    *protoFile
				message string
			}{file, message}
		}
	}
	messages := map[string]*ProtobufMessage{}
	// Every protobuf body is wrapped in runtime.Unknown, which no definition refers to.
	pending := []string{"io.k8s.apimachinery.pkg.runtime.Unknown"}
	for _, definition := range g.definitions {
		pending = append(pending, protobufReferences(definition)...)
	}
	seen := map[string]bool{}
	for len(pending) > 0 {
		name := pending[0]
		pending = pending[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		source, found := byName[name]
		if !found {
			return nil, fmt.Errorf("protobuf message %s: no generated.proto declares it", name)
		}
		fields := source.file.messages[source.message]
		if definition := g.definitions[name]; definition != nil && describesMessage(definition, fields) {
			continue
		}
		message := &ProtobufMessage{Fields: []ProtobufMessageField{}}
		for _, field := range fields {
			described, err := g.describeProtoFileField(source.file, field)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, field.name, err)
			}
			message.Fields = append(message.Fields, ProtobufMessageField{Name: field.name, ProtobufField: described})
			for _, referenced := range []string{described.Type, mapValueType(described.Map)} {
				if _, scalar := protoScalars[referenced]; referenced != "" && !scalar {
					pending = append(pending, referenced)
				}
			}
		}
		messages[name] = message
	}
	return messages, nil
}

func mapValueType(m *ProtobufMap) string {
	if m == nil {
		return ""
	}
	return m.Value.Type
}

func (g *generator) describeProtoFileField(file *protoFile, field protoFileField) (ProtobufField, error) {
	described := ProtobufField{Tag: field.number, Repeated: field.repeated}
	if field.mapKey != "" {
		keyType, err := g.u.protos.typeName(file, field.mapKey)
		if err != nil {
			return described, err
		}
		valueType, err := g.u.protos.typeName(file, field.mapValue)
		if err != nil {
			return described, err
		}
		described.Wire = "bytes"
		described.Map = &ProtobufMap{
			Key:   ProtobufMapPart{Type: keyType, Wire: wireOf(keyType)},
			Value: ProtobufMapPart{Type: valueType, Wire: wireOf(valueType)},
		}
		return described, nil
	}
	typeName, err := g.u.protos.typeName(file, field.typeName)
	if err != nil {
		return described, err
	}
	described.Type, described.Wire = typeName, wireOf(typeName)
	return described, nil
}

func wireOf(typeName string) string {
	if wire, scalar := protoScalars[typeName]; scalar {
		return wire
	}
	return "bytes"
}

// protobufReferences are the message names a definition's protobuf facts use.
func protobufReferences(definition *Schema) []string {
	var names []string
	add := func(name string) {
		if _, scalar := protoScalars[name]; name != "" && !scalar {
			names = append(names, name)
		}
	}
	for _, property := range definition.Properties {
		if property.Protobuf == nil {
			continue
		}
		add(property.Protobuf.Type)
		if property.Protobuf.Map != nil {
			add(property.Protobuf.Map.Value.Type)
		}
	}
	for _, inline := range definition.ProtobufInline {
		add(inline.Type)
	}
	sort.Strings(names)
	return names
}

// describesMessage tells whether a definition's properties and inline entries cover exactly
// the fields of its generated message.
func describesMessage(definition *Schema, fields []protoFileField) bool {
	covered := map[int]bool{}
	for _, property := range definition.Properties {
		if property.Protobuf != nil {
			covered[property.Protobuf.Tag] = true
		}
	}
	for _, inline := range definition.ProtobufInline {
		covered[inline.Tag] = true
	}
	if len(covered) != len(fields) {
		return false
	}
	for _, field := range fields {
		if !covered[field.number] {
			return false
		}
	}
	return true
}
