// Command schemagen writes the schema facts of the reference's built-in API types (JSON
// shape, OpenAPI extensions, protobuf field numbers and wire types) as OpenAPI v2
// definitions, read from the reference's Go API modules pinned in go.mod. It runs at build
// time only: `make schemas`.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "", "directory to write definitions.json into")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: schemagen -out <dir>")
		os.Exit(2)
	}
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(outDir string) error {
	u, err := loadUniverse()
	if err != nil {
		return err
	}
	g := newGenerator(u)
	if err := g.generate(); err != nil {
		return err
	}
	messages, err := g.protobufMessages()
	if err != nil {
		return err
	}
	modules, err := moduleVersions(u)
	if err != nil {
		return err
	}
	output := Output{
		Metadata: OutputMetadata{
			Generator: "tools/schemagen",
			Release:   release,
			Modules:   modules,
		},
		Definitions:      g.definitions,
		ProtobufMessages: messages,
	}
	var encoded bytes.Buffer
	encoder := json.NewEncoder(&encoded)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(output); err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	target := filepath.Join(outDir, "definitions.json")
	if err := os.WriteFile(target, encoded.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("schemagen: %d definitions, %d protobuf messages, %d bytes -> %s\n",
		len(g.definitions), len(messages), encoded.Len(), target)
	return nil
}

// moduleVersions are the versions of the source modules the packages were loaded from.
func moduleVersions(u *universe) (map[string]string, error) {
	versions := map[string]string{}
	for _, module := range servedModules {
		if u.modules[module] == "" {
			return nil, fmt.Errorf("module %s: version unknown", module)
		}
		versions[module] = u.modules[module]
	}
	return versions, nil
}
