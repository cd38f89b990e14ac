//go:build schemasources

// This file is never compiled. It names the reference API modules the generator reads, so
// that `go mod tidy` keeps them (at the pinned versions) in go.mod and go.sum.
package main

import (
	_ "k8s.io/api/core/v1"
	_ "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/apimachinery/pkg/version"
	_ "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)
