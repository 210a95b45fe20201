// Package demo is chunkview's embedded cluster: an in-memory Kubernetes API that
// keeps the promises of a real API server that the chunked driver relies on (uids,
// resourceVersions and conflicts, the Secret size limit, immutable Secrets, delete
// preconditions, deletecollection, pagination, watches, a metadata client over the
// same objects), and a set of sample Helm releases written onto it through the real
// chunked driver, healthy ones and broken ones. `chunkview --demo` runs the TUI on
// it, and UI tests use it where a real API server would add nothing.
package demo
