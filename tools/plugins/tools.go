//go:build tools

// Package tools pins the commands the packaging test runs chunkview's plugins
// with: Helm 3's and Helm 4's CLIs, as released, and kubectl (see main.go).
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
	_ "helm.sh/helm/v4/cmd/helm"
)
