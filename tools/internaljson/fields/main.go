// Prints server/validation/internal-json-fields.ts: for each struct that the reference's
// "may not change" messages diff (core.PodSpec, core.EphemeralContainer,
// core.PersistentVolumeSource, core.PersistentVolumeClaimSpec, core.PersistentVolumeClaim), each
// value whose parts its update validation compares with apiequality.Semantic.DeepEqual
// (batch.JobSpec, apps.StatefulSetSpec, storage.VolumeAttachmentSpec, storage.CSINodeDriver,
// core.EventSource, resource.ResourceClaimTemplateSpec, resource.AllocationResult,
// networking.IPAddressSpec), a ServiceCIDR's spec, a Node's duplicate core.Taint, the versions
// of a CustomResourceDefinition its spec validation prints whole, and every
// struct reachable from them, the keys encoding/json writes for the INTERNAL Go type, in its
// order, with the type of each value (pointers included) and the key of the v1 JSON object it is
// converted from.
// apimachinery's diff.Diff marshals the internal structs, which carry no json tags: keys are Go
// field names, embedded structs are flattened, and every field is written. Each internal struct
// is walked beside its v1 counterpart (the v1 field of the same Go name gives the JSON key);
// the few internal fields that v1 keeps elsewhere are in movedFields below.
// Run by tools/internaljson/gen.sh, inside a scratch module that requires k8s.io/kubernetes.
package main

import (
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/batch"
	"k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/networking"
	"k8s.io/kubernetes/pkg/apis/resource"
	"k8s.io/kubernetes/pkg/apis/storage"
)

// The structs the messages diff, each beside the v1 type it is converted from.
var roots = []struct{ internal, external reflect.Type }{
	{reflect.TypeFor[core.PodSpec](), reflect.TypeFor[v1.PodSpec]()},
	{reflect.TypeFor[core.EphemeralContainer](), reflect.TypeFor[v1.EphemeralContainer]()},
	{reflect.TypeFor[core.PersistentVolumeSource](), reflect.TypeFor[v1.PersistentVolumeSource]()},
	{reflect.TypeFor[core.PersistentVolumeClaimSpec](), reflect.TypeFor[v1.PersistentVolumeClaimSpec]()},
	// NodeRestriction diffs a whole claim when a node's status write changes more than it may.
	{reflect.TypeFor[core.PersistentVolumeClaim](), reflect.TypeFor[v1.PersistentVolumeClaim]()},
	// Specs whose parts the update validation compares with apiequality.Semantic.DeepEqual,
	// which needs to know where Go holds a pointer and where a value.
	{reflect.TypeFor[batch.JobSpec](), reflect.TypeFor[batchv1.JobSpec]()},
	{reflect.TypeFor[apps.StatefulSetSpec](), reflect.TypeFor[appsv1.StatefulSetSpec]()},
	{reflect.TypeFor[storage.VolumeAttachmentSpec](), reflect.TypeFor[storagev1.VolumeAttachmentSpec]()},
	{reflect.TypeFor[storage.CSINodeDriver](), reflect.TypeFor[storagev1.CSINodeDriver]()},
	// An Event's other fixed fields are strings, numbers, times and object references.
	{reflect.TypeFor[core.EventSource](), reflect.TypeFor[v1.EventSource]()},
	{reflect.TypeFor[resource.ResourceClaimTemplateSpec](), reflect.TypeFor[resourcev1.ResourceClaimTemplateSpec]()},
	{reflect.TypeFor[resource.AllocationResult](), reflect.TypeFor[resourcev1.AllocationResult]()},
	{reflect.TypeFor[networking.IPAddressSpec](), reflect.TypeFor[networkingv1.IPAddressSpec]()},
	// A ServiceCIDR with too many ranges shows its whole spec.
	{reflect.TypeFor[networking.ServiceCIDRSpec](), reflect.TypeFor[networkingv1.ServiceCIDRSpec]()},
	// A Node's duplicate taint is printed whole.
	{reflect.TypeFor[core.Taint](), reflect.TypeFor[v1.Taint]()},
	// A CustomResourceDefinition's versions are printed whole when their storage flags or names
	// are wrong.
	{reflect.TypeFor[apiextensions.CustomResourceDefinitionVersion](), reflect.TypeFor[apiextensionsv1.CustomResourceDefinitionVersion]()},
}

// Internal fields with no v1 field of their name: Convert_v1_PodSpec_To_core_PodSpec
// (pkg/apis/core/v1/conversion.go) fills them from the v1 PodSpec's fields of these keys. The
// generator stops on any other internal-only field, so that a release moving one is noticed.
var movedFields = map[string]struct{ from, v1Key string }{
	"core.PodSecurityContext.HostNetwork":           {"core.PodSpec", "hostNetwork"},
	"core.PodSecurityContext.HostPID":               {"core.PodSpec", "hostPID"},
	"core.PodSecurityContext.HostIPC":               {"core.PodSpec", "hostIPC"},
	"core.PodSecurityContext.ShareProcessNamespace": {"core.PodSpec", "shareProcessNamespace"},
	"core.PodSecurityContext.HostUsers":             {"core.PodSpec", "hostUsers"},
}

// Values written by their own MarshalJSON, named as the TypeScript renderer knows them.
var marshalers = map[reflect.Type]string{
	reflect.TypeFor[apiresource.Quantity](): "Quantity",
	reflect.TypeFor[intstr.IntOrString]():   "IntOrString",
	reflect.TypeFor[metav1.Time]():          "Time",
	reflect.TypeFor[metav1.FieldsV1]():      "FieldsV1",
	reflect.TypeFor[runtime.RawExtension](): "RawExtension",
	// The internal type is an interface{} holding what json.Unmarshal made of v1's raw bytes.
	reflect.TypeFor[apiextensions.JSON](): "JSONValue",
}

type field struct {
	key, v1Key, typ, movedFrom string
	omitEmpty, omitZero        bool
}

var structs = map[string][]field{}

// The field being walked, for the generator's complaints.
var walking string

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// typeName is how the TypeScript renderer reads a value's type: Quantity, IntOrString, Time,
// FieldsV1, RawExtension, JSONValue, string, bool, int, float, []byte, *T, []T, map[string]T, or a
// struct's name.
func typeName(internal, external reflect.Type) string {
	if internal.Kind() == reflect.Pointer && external.Kind() == reflect.Pointer {
		return "*" + typeName(internal.Elem(), external.Elem())
	}
	// metav1.Convert_Pointer_*_To_*: a nil v1 pointer is the internal zero value, which is what
	// the renderer writes for an absent key of the value's type.
	if internal.Kind() != reflect.Pointer && external.Kind() == reflect.Pointer {
		return typeName(internal, external.Elem())
	}
	if name, ok := marshalers[internal]; ok {
		return name
	}
	for _, marshaler := range []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()} {
		if internal.Implements(marshaler) || reflect.PointerTo(internal).Implements(marshaler) {
			fail("%s is written by a %s the renderer does not know", internal, marshaler)
		}
	}
	if internal.Kind() != external.Kind() {
		fail("%s: %s is a %s, its v1 counterpart %s a %s", walking, internal, internal.Kind(), external, external.Kind())
	}
	switch internal.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Slice:
		if internal.Elem().Kind() == reflect.Uint8 {
			return "[]byte"
		}
		return "[]" + typeName(internal.Elem(), external.Elem())
	case reflect.Map:
		if internal.Key().Kind() != reflect.String {
			fail("%s has keys that are not strings", internal)
		}
		return "map[string]" + typeName(internal.Elem(), external.Elem())
	case reflect.Struct:
		walk(internal, external)
		return internal.String()
	}
	fail("%s is a %s, which the renderer does not write", internal, internal.Kind())
	return ""
}

// jsonKey is the key encoding/json writes for a field, and whether it is left out when empty
// (omitempty) or zero (omitzero).
func jsonKey(f reflect.StructField) (key string, omitEmpty, omitZero, skip bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false, true
	}
	name, options, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	options = "," + options + ","
	return name, strings.Contains(options, ",omitempty,"), strings.Contains(options, ",omitzero,"), false
}

// flatFields lists a struct's fields as encoding/json sees them: exported ones, with the fields
// of embedded structs whose tag names no key (v1's `json:",inline"`) in their place. None of the
// walked types has two fields of one name at one depth, which encoding/json would drop.
func flatFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.Anonymous && f.Type.Kind() == reflect.Struct && name == "" {
			out = append(out, flatFields(f.Type)...)
			continue
		}
		if f.IsExported() {
			out = append(out, f)
		}
	}
	return out
}

func walk(internal, external reflect.Type) {
	name := internal.String()
	if _, seen := structs[name]; seen {
		return
	}
	structs[name] = nil
	structs[name] = pairFields(name, internal, external, "")
}

// pairFields lists the keys encoding/json writes for the internal struct, each with the key
// (after v1Prefix) of the v1 JSON object that holds its value. An internal struct may embed
// what v1 names: the internal PersistentVolumeClaimTemplate embeds metav1.ObjectMeta, whose
// fields it writes flattened, where v1 holds them under `metadata`.
func pairFields(name string, internal, external reflect.Type, v1Prefix string) []field {
	v1Fields := map[string]reflect.StructField{}
	for _, f := range flatFields(external) {
		v1Fields[f.Name] = f
	}
	var fields []field
	for i := 0; i < internal.NumField(); i++ {
		f := internal.Field(i)
		ext, inV1 := v1Fields[f.Name]
		if tagName, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.Anonymous && f.Type.Kind() == reflect.Struct && tagName == "" {
			if inV1 {
				v1Key, _, _, _ := jsonKey(ext)
				fields = append(fields, pairFields(name, f.Type, ext.Type, v1Prefix+v1Key+".")...)
			} else {
				fields = append(fields, pairFields(name, f.Type, external, v1Prefix)...)
			}
			continue
		}
		key, omitEmpty, omitZero, skip := jsonKey(f)
		if skip || !f.IsExported() {
			continue
		}
		out := field{key: key, omitEmpty: omitEmpty, omitZero: omitZero}
		walking = name + "." + f.Name
		// The renderer knows the zero of a metav1.Time (IsZero) only.
		if omitZero && f.Type != reflect.TypeFor[metav1.Time]() {
			fail("%s is omitzero, which the renderer writes for a metav1.Time only", walking)
		}
		if inV1 {
			v1Key, _, _, _ := jsonKey(ext)
			out.v1Key = v1Prefix + v1Key
			out.typ = typeName(f.Type, ext.Type)
		} else if moved, ok := movedFields[walking]; ok {
			out.v1Key, out.movedFrom = moved.v1Key, moved.from
			out.typ = typeName(f.Type, f.Type)
		} else {
			fail("%s has no v1 field of its name and is not in movedFields", walking)
		}
		fields = append(fields, out)
	}
	return fields
}

func main() {
	for _, root := range roots {
		walk(root.internal, root.external)
	}
	names := make([]string, 0, len(structs))
	for name := range structs {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Printf("// Generated by tools/internaljson/gen.sh from kubernetes v%s's internal API types; do not edit.\n", os.Getenv("KUBE_VERSION"))
	fmt.Println("// The keys encoding/json writes for each internal struct, in order, with the type of the value")
	fmt.Println("// and the key of the v1 JSON object it comes from (movedFrom: of the enclosing struct named).")
	fmt.Println()
	fmt.Println("export interface InternalField {")
	fmt.Println("  readonly key: string;")
	fmt.Println("  readonly v1Key: string;")
	fmt.Println("  readonly type: string;")
	fmt.Println("  readonly omitEmpty?: true;")
	fmt.Println("  readonly omitZero?: true;")
	fmt.Println("  readonly movedFrom?: string;")
	fmt.Println("}")
	fmt.Println()
	fmt.Println("export const INTERNAL_STRUCTS: Readonly<Record<string, readonly InternalField[]>> = {")
	for _, name := range names {
		fmt.Printf("  %q: [\n", name)
		for _, f := range structs[name] {
			fmt.Printf("    { key: %q, v1Key: %q, type: %q", f.key, f.v1Key, f.typ)
			if f.omitEmpty {
				fmt.Print(", omitEmpty: true")
			}
			if f.omitZero {
				fmt.Print(", omitZero: true")
			}
			if f.movedFrom != "" {
				fmt.Printf(", movedFrom: %q", f.movedFrom)
			}
			fmt.Println(" },")
		}
		fmt.Println("  ],")
	}
	fmt.Println("};")
}
