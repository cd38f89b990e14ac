package main

import (
	"fmt"
	"go/types"
	"reflect"
)

// Union is one `x-kubernetes-unions` entry as openapi-gen writes it: the discriminator field,
// and each member field's JSON name with the Go field name the discriminator takes for it.
type Union struct {
	Discriminator          string            `json:"discriminator,omitempty"`
	FieldsToDiscriminateBy map[string]string `json:"fields-to-discriminateBy"`
}

// unionsOf gives a struct's unions in openapi-gen's order: the struct itself when marked
// `+union` (its `+unionDiscriminator` field, every other field a member), those of structs it
// embeds inline, then one of its own `+unionDiscriminator` and `+unionDeprecated` fields.
func (g *generator) unionsOf(named *types.Named) ([]Union, error) {
	source, err := g.u.packageOf(named.Obj())
	if err != nil {
		return nil, err
	}
	structType, ok := named.Underlying().(*types.Struct)
	if !ok {
		return nil, nil
	}
	type member struct {
		jsonName, goName string
		tags             commentTags
		inline           *types.Named
	}
	var members []member
	for i := 0; i < structType.NumFields(); i++ {
		field := structType.Field(i)
		structTag := reflect.StructTag(structType.Tag(i))
		tags := extractTags(source.fieldDocs[field.Pos()])
		jsonParts := jsonTagParts(structTag)
		if len(jsonParts) > 1 && jsonParts[1] == "inline" {
			if embedded, ok := derefPointer(field.Type()).(*types.Named); ok && !tags.openAPIGen("false") {
				members = append(members, member{inline: embedded})
			}
			continue
		}
		if len(jsonParts) == 0 || jsonParts[0] == "" || jsonParts[0] == "-" {
			continue
		}
		members = append(members, member{jsonName: jsonParts[0], goName: field.Name(), tags: tags})
	}

	var unions []Union
	if extractTags(source.typeDocs[named.Obj().Name()]).has("union") {
		union := Union{FieldsToDiscriminateBy: map[string]string{}}
		for _, m := range members {
			if m.inline != nil {
				return nil, fmt.Errorf("union %s embeds a struct", named.Obj().Name())
			}
			if m.tags.has("unionDiscriminator") {
				union.Discriminator = m.jsonName
			} else {
				union.FieldsToDiscriminateBy[m.jsonName] = m.goName
			}
		}
		unions = append(unions, union)
	}
	for _, m := range members {
		if m.inline == nil {
			continue
		}
		embedded, err := g.unionsOf(m.inline)
		if err != nil {
			return nil, err
		}
		unions = append(unions, embedded...)
	}
	own := Union{FieldsToDiscriminateBy: map[string]string{}}
	for _, m := range members {
		if m.inline != nil {
			continue
		}
		if m.tags.has("unionDiscriminator") {
			own.Discriminator = m.jsonName
		}
		if m.tags.has("unionDeprecated") {
			own.FieldsToDiscriminateBy[m.jsonName] = m.goName
		}
	}
	if len(own.FieldsToDiscriminateBy) > 0 {
		unions = append(unions, own)
	}
	return unions, nil
}
