// Prints test/server/validation/internal-json.reference.json: for each case of
// internal-json.cases.json beside it (a kind, and an old and a new v1 object), the old and new
// objects converted to the internal types as the reference converts them, written by
// json.MarshalIndent(x, "", " ") as apimachinery's diff.Diff writes them, and diff.Diff's answer.
// The old object first goes through protobuf and back, as an object read from storage does
// (empty lists and maps come back nil); the new one is decoded from JSON as a request body is.
// Run by tools/internaljson/record.sh, inside a scratch module that requires k8s.io/kubernetes.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	kjson "sigs.k8s.io/json"
)

type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// Each kind: a new v1 value to decode into, a new internal value to convert to, and the part of
// the internal value the reference diffs.
var kinds = map[string]struct {
	v1       func() protoMessage
	internal func() any
	diffed   func(any) any
}{
	"PodSpec": {
		func() protoMessage { return &v1.PodSpec{} },
		func() any { return &core.PodSpec{} },
		func(x any) any { return *x.(*core.PodSpec) },
	},
	"EphemeralContainer": {
		func() protoMessage { return &v1.EphemeralContainer{} },
		func() any { return &core.EphemeralContainer{} },
		func(x any) any { return *x.(*core.EphemeralContainer) },
	},
	"PersistentVolumeSource": {
		func() protoMessage { return &v1.PersistentVolumeSource{} },
		func() any { return &core.PersistentVolumeSource{} },
		func(x any) any { return *x.(*core.PersistentVolumeSource) },
	},
	"PersistentVolumeClaimSpec": {
		func() protoMessage { return &v1.PersistentVolumeClaimSpec{} },
		func() any { return &core.PersistentVolumeClaimSpec{} },
		func(x any) any { return *x.(*core.PersistentVolumeClaimSpec) },
	},
}

type testCase struct {
	Name string          `json:"name"`
	Kind string          `json:"kind"`
	Old  json.RawMessage `json:"old"`
	New  json.RawMessage `json:"new"`
}

type recorded struct {
	Name    string `json:"name"`
	OldJSON string `json:"oldJSON"`
	NewJSON string `json:"newJSON"`
	Diff    string `json:"diff"`
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func internal(kindName string, v1JSON []byte, stored bool) any {
	kind, ok := kinds[kindName]
	if !ok {
		fail(fmt.Errorf("unknown kind %q", kindName))
	}
	external := kind.v1()
	// Strict, as a misspelt key that encoding/json would match regardless of case must not
	// slip into a case.
	strictErrs, err := kjson.UnmarshalStrict(v1JSON, external)
	if err != nil {
		fail(err)
	}
	if len(strictErrs) > 0 {
		fail(fmt.Errorf("%s: %v", kindName, strictErrs))
	}
	if stored {
		data, err := external.Marshal()
		if err != nil {
			fail(err)
		}
		external = kind.v1()
		if err := external.Unmarshal(data); err != nil {
			fail(err)
		}
	}
	out := kind.internal()
	if err := legacyscheme.Scheme.Convert(external, out, nil); err != nil {
		fail(err)
	}
	return kind.diffed(out)
}

func main() {
	data, err := os.ReadFile(os.Getenv("CASES"))
	if err != nil {
		fail(err)
	}
	var cases []testCase
	if err := json.Unmarshal(data, &cases); err != nil {
		fail(err)
	}
	out := make([]recorded, 0, len(cases))
	for _, c := range cases {
		oldValue, newValue := internal(c.Kind, c.Old, true), internal(c.Kind, c.New, false)
		oldJSON, err := json.MarshalIndent(oldValue, "", " ")
		if err != nil {
			fail(err)
		}
		newJSON, err := json.MarshalIndent(newValue, "", " ")
		if err != nil {
			fail(err)
		}
		out = append(out, recorded{c.Name, string(oldJSON), string(newJSON), diff.Diff(oldValue, newValue)})
	}
	encoded, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		fail(err)
	}
	fmt.Println(string(encoded))
}
