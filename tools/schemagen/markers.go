package main

import (
	"go/ast"
	"reflect"
	"strings"
)

// commentTags are the `+name=value` markers of a comment block, in the reading of the
// reference's code generators: one entry per marker line, values in order of appearance,
// an empty value for a bare `+name`.
type commentTags map[string][]string

func commentLines(groups ...*ast.CommentGroup) []string {
	for _, group := range groups {
		if group != nil {
			return strings.Split(group.Text(), "\n")
		}
	}
	return nil
}

func extractTags(lines []string) commentTags {
	tags := commentTags{}
	for _, line := range lines {
		line = strings.Trim(line, " ")
		if !strings.HasPrefix(line, "+") {
			continue
		}
		name, value, _ := strings.Cut(line[1:], "=")
		tags[name] = append(tags[name], value)
	}
	return tags
}

func (tags commentTags) has(name string) bool {
	_, found := tags[name]
	return found
}

// openAPIGenValues are the values of `+k8s:openapi-gen=...` markers.
func (tags commentTags) openAPIGenValues() []string {
	return tags["k8s:openapi-gen"]
}

func (tags commentTags) openAPIGen(value string) bool {
	for _, v := range tags.openAPIGenValues() {
		if v == value {
			return true
		}
	}
	return false
}

// jsonTagParts splits a field's `json` struct tag; an absent tag gives no parts.
func jsonTagParts(tag reflect.StructTag) []string {
	jsonTag := tag.Get("json")
	if jsonTag == "" {
		return nil
	}
	return strings.Split(jsonTag, ",")
}
