package helm4

import "github.com/chunkview/chunkview/storage/chunked"

// What a Helm 4 adopter needs of storage/chunked, the driver's core, under this
// package's name, as package storage has it for Helm 3.

// ChunkedSecretsConfig configures a driver: storage/chunked's Config, the same as
// Helm 3's storage.ChunkedSecretsConfig. Its first four fields are those of
// helm-operator-plugins' configuration of the same name.
type ChunkedSecretsConfig = chunked.Config

// ErrConflict is wrapped by the error of a write whose record another writer
// changed since this driver read it: nothing was overwritten.
var ErrConflict = chunked.ErrConflict

// ReleaseCache is the opt-in cached read path of chunked release drivers, shared
// by every driver built with it, for both Helm majors: see chunked.ReleaseCache.
type ReleaseCache = chunked.ReleaseCache

// ReleaseCacheOptions configures a ReleaseCache.
type ReleaseCacheOptions = chunked.ReleaseCacheOptions

// NewReleaseCache returns a release cache that lists and watches index Secrets
// through secrets; see chunked.NewReleaseCache.
var NewReleaseCache = chunked.NewReleaseCache
