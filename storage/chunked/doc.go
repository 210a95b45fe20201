// Package chunked is the core of chunkview's chunked Helm release drivers: the
// on-cluster format of helm-operator-plugins' pkg/storage (OLMv1's
// operator-controller), and the writes, reads, guarantees and release cache
// that chunkview's Helm 3 driver (package storage) and Helm 4 driver
// (storage/helm4) share.
//
// Core is generic over the release type; a Codec gives it what is particular to
// one Helm major. An adopter does not use this package directly: package
// storage (Helm 3) and storage/helm4 (Helm 4) are the drivers, each with the
// names of this package it needs. Package storage's documentation spells out the
// format and every guarantee.
//
// This module requires neither Helm 3 nor Helm 4: only client-go and the
// libraries the format's encoding needs.
package chunked
