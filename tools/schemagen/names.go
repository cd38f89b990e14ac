package main

import "strings"

// definitionName is the reference server's name for a Go type in OpenAPI documents: the Go
// package path with its leading domain reversed, then the type name, joined by dots
// ("k8s.io/api/apps/v1" + "Deployment" -> "io.k8s.api.apps.v1.Deployment").
func definitionName(pkgPath, typeName string) string {
	parts := strings.Split(pkgPath+"."+typeName, "/")
	if strings.Contains(parts[0], ".") {
		domain := strings.Split(parts[0], ".")
		for i, j := 0, len(domain)-1; i < j; i, j = i+1, j-1 {
			domain[i], domain[j] = domain[j], domain[i]
		}
		parts[0] = strings.Join(domain, ".")
	}
	return strings.Join(parts, ".")
}
