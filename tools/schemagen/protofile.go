package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// protoFile is what the generator needs from a package's generated.proto: its proto package,
// the Go package it maps to, and each message's fields. The reference's go-to-protobuf writes
// these files in a fixed, flat shape (proto2, no nested messages), so a line reader suffices.
type protoFile struct {
	protoPackage string
	goPackage    string
	messages     map[string][]protoFileField
}

type protoFileField struct {
	name     string
	number   int
	repeated bool
	typeName string // scalar name or message name as written (maybe qualified)
	mapKey   string // set for map<key, value> fields
	mapValue string
}

var (
	protoPackageLine = regexp.MustCompile(`^package\s+([\w.]+)\s*;`)
	protoGoPackage   = regexp.MustCompile(`^option\s+go_package\s*=\s*"([^"]+)"\s*;`)
	protoMessageOpen = regexp.MustCompile(`^message\s+(\w+)\s*\{`)
	protoFieldLine   = regexp.MustCompile(`^\s*(optional|repeated|required)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)`)
	protoMapLine     = regexp.MustCompile(`^\s*map\s*<\s*([\w.]+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)`)
)

func readProtoFile(path string) (*protoFile, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	parsed := &protoFile{messages: map[string][]protoFileField{}}
	current := ""
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue
		}
		if m := protoPackageLine.FindStringSubmatch(line); m != nil {
			parsed.protoPackage = m[1]
			continue
		}
		if m := protoGoPackage.FindStringSubmatch(line); m != nil {
			parsed.goPackage = m[1]
			continue
		}
		if m := protoMessageOpen.FindStringSubmatch(line); m != nil {
			if current != "" {
				return nil, fmt.Errorf("%s: nested message %s inside %s is not expected", path, m[1], current)
			}
			current = m[1]
			parsed.messages[current] = []protoFileField{}
			continue
		}
		if strings.HasPrefix(line, "}") {
			current = ""
			continue
		}
		if current == "" {
			continue
		}
		if m := protoMapLine.FindStringSubmatch(line); m != nil {
			number, _ := strconv.Atoi(m[4])
			parsed.messages[current] = append(parsed.messages[current], protoFileField{
				name: m[3], number: number, mapKey: m[1], mapValue: m[2],
			})
			continue
		}
		if m := protoFieldLine.FindStringSubmatch(line); m != nil {
			number, _ := strconv.Atoi(m[4])
			parsed.messages[current] = append(parsed.messages[current], protoFileField{
				name: m[3], number: number, repeated: m[1] == "repeated", typeName: m[2],
			})
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if parsed.protoPackage == "" || parsed.goPackage == "" {
		return nil, fmt.Errorf("%s: no package or go_package line", path)
	}
	return parsed, nil
}

// protoScalars are the proto2 scalar types with the wire type each is written with.
var protoScalars = map[string]string{
	"double": "fixed64", "float": "fixed32",
	"int32": "varint", "int64": "varint", "uint32": "varint", "uint64": "varint",
	"sint32": "zigzag32", "sint64": "zigzag64",
	"fixed32": "fixed32", "fixed64": "fixed64", "sfixed32": "fixed32", "sfixed64": "fixed64",
	"bool": "varint", "string": "bytes", "bytes": "bytes",
}

// protoCatalog resolves proto type names across all read generated.proto files.
type protoCatalog struct {
	byProtoPackage map[string]*protoFile
	byGoPackage    map[string]*protoFile
}

func newProtoCatalog() *protoCatalog {
	return &protoCatalog{byProtoPackage: map[string]*protoFile{}, byGoPackage: map[string]*protoFile{}}
}

func (c *protoCatalog) add(file *protoFile) {
	c.byProtoPackage[file.protoPackage] = file
	c.byGoPackage[file.goPackage] = file
}

func (c *protoCatalog) message(goPackage, typeName string) ([]protoFileField, bool) {
	file := c.byGoPackage[goPackage]
	if file == nil {
		return nil, false
	}
	fields, found := file.messages[typeName]
	return fields, found
}

// typeName turns a proto type as written in `from` into the project's name for it: a scalar
// keeps its proto name, a message becomes its definition name.
func (c *protoCatalog) typeName(from *protoFile, written string) (string, error) {
	if _, scalar := protoScalars[written]; scalar {
		return written, nil
	}
	written = strings.TrimPrefix(written, ".") // fully qualified names may start with a dot
	dot := strings.LastIndex(written, ".")
	if dot < 0 {
		return definitionName(from.goPackage, written), nil
	}
	file := c.byProtoPackage[written[:dot]]
	if file == nil {
		return "", fmt.Errorf("proto type %s (used in %s): its generated.proto was not read", written, from.protoPackage)
	}
	return definitionName(file.goPackage, written[dot+1:]), nil
}
