package main

import (
	"regexp"
	"strings"
)

// release is the reference release whose API modules the go.mod pins (v0.34.x = 1.34).
const release = "1.34"

// servedModules are the modules whose versions the output records.
var servedModules = []string{
	"k8s.io/api",
	"k8s.io/apimachinery",
	"k8s.io/apiextensions-apiserver",
	"k8s.io/kube-aggregator",
}

// apiPackagePatterns select the packages whose every API type becomes a definition.
// `k8s.io/api/...` is filtered to its group/version packages by versionPackage.
var apiPackagePatterns = []string{
	"k8s.io/api/...",
	"k8s.io/apimachinery/pkg/apis/meta/v1",
	"k8s.io/apimachinery/pkg/apis/meta/v1beta1",
	"k8s.io/apimachinery/pkg/version",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1",
}

// supportPackages hold types that API types refer to; only the referenced ones become
// definitions, and their generated.proto files describe messages the API types use.
var supportPackages = []string{
	"k8s.io/apimachinery/pkg/api/resource",
	"k8s.io/apimachinery/pkg/util/intstr",
	"k8s.io/apimachinery/pkg/runtime",
	"k8s.io/apimachinery/pkg/runtime/schema",
	"k8s.io/apimachinery/pkg/types",
}

var versionSegment = regexp.MustCompile(`^v\d+((alpha|beta)\d+)?$`)

// versionPackage tells whether a package path matched by a pattern is an API package: a
// group/version package of k8s.io/api, or one named explicitly.
func versionPackage(path string) bool {
	if !strings.HasPrefix(path, "k8s.io/api/") {
		return true
	}
	segments := strings.Split(path, "/")
	return len(segments) == 4 && versionSegment.MatchString(segments[3])
}
