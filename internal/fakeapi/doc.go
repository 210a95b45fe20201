// Package fakeapi is an in-memory Kubernetes API server for Secrets, ConfigMaps
// and Namespaces that keeps the promises of a real kube-apiserver chunkview
// relies on (see Cluster): the demo runs on it, and tests use it where envtest
// adds nothing. It also holds the objects releases deploy, read through its
// dynamic client, discovery and Pods' logs (dynamic.go, discovery.go,
// podlogs.go), for the demo's live views. Its test hooks (request counts, injected failures) are in
// hooks.go.
package fakeapi
