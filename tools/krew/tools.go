//go:build tools

// Package tools pins krew, for the packaging test (see go.mod).
package tools

import _ "sigs.k8s.io/krew/cmd/krew"
