// Package demo is chunkview's embedded cluster: an in-memory Kubernetes API that
// keeps the promises of a real API server that the chunked driver and Helm's own
// drivers rely on (uids, resourceVersions and conflicts, the size limit of Secrets
// and ConfigMaps, immutable Secrets and ConfigMaps, delete preconditions,
// deletecollection, pagination, label and field selectors, watches, a metadata
// client over the same objects), and a set of sample Helm releases written onto it.
//
// Most samples are written through the real chunked driver, healthy ones and broken
// ones (a missing chunk, a corrupt chunk, an orphan, an upgrade stuck pending), in
// the namespaces demo, payments and olmv1-system. A few are written through Helm's
// own drivers, each in a namespace of its own (see HelmStoreSamples): redis in Helm
// Secrets (web), ingress-nginx in Helm ConfigMaps (ingress), and loki-stack in Helm
// Secrets (logging), whose revisions grow steadily to about 90% of the Secret size
// limit. The objects of each sample's deployed revision run there too, with a
// few stories (a stuck rollout, a failed hook, a drift: see liveStories), and the
// controllers of some (OLMv1's ClusterExtensions, a Flux HelmRelease).
// `chunkview --demo` runs the TUI on it, and UI tests use it where a real API
// server would add nothing.
package demo
