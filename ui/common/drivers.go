package common

import "github.com/chunkview/chunkview/kube"

// StoreOf returns store d, chunked when unset: rows written before stores existed,
// and rows tests build by hand, leave it empty.
func StoreOf(d string) string {
	if d == "" {
		return kube.DriverChunked
	}
	return d
}

// IsHelmStore reports whether d is one of Helm's own drivers, which keep each
// revision whole in one object.
func IsHelmStore(d string) bool {
	d = StoreOf(d)
	return d == kube.DriverSecret || d == kube.DriverConfigMap
}

// SameStore reports whether two stores are the same, an unset one being chunked.
func SameStore(a, b string) bool { return StoreOf(a) == StoreOf(b) }
