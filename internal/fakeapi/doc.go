// Package fakeapi is an in-memory Kubernetes API server for Secrets, ConfigMaps
// and Namespaces that keeps the promises of a real kube-apiserver chunkview
// relies on (see Cluster): the demo runs on it, and tests use it where envtest
// adds nothing. Its test hooks (request counts, injected failures) are in
// hooks.go.
package fakeapi
