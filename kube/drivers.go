package kube

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chunkview/chunkview/storage"
)

// The stores a Helm release record can live in, as --driver and -o json spell them.
const (
	// DriverChunked is the chunked format: an index Secret plus chunk Secrets
	// (helm-operator-plugins, OLMv1).
	DriverChunked = "chunked"
	// DriverSecret is Helm's own default driver: one Secret of type
	// helm.sh/release.v1 per revision.
	DriverSecret = "secret"
	// DriverConfigMap is Helm's ConfigMaps driver: one ConfigMap per revision.
	DriverConfigMap = "configmap"
)

// AllDrivers are the stores chunkview reads, in the order listings show them.
var AllDrivers = []string{DriverChunked, DriverSecret, DriverConfigMap}

// HelmOwner is the owner label Helm's own drivers put on every record.
const HelmOwner = storage.HelmOwner

// ParseDrivers reads --driver values (repeated or comma-separated) and, when none
// is given, HELM_DRIVER as Helm reads it: "secret" or "secrets" (Helm's default),
// "configmap" or "configmaps". Helm's "memory" and "sql" drivers keep nothing
// chunkview can reach and are refused. Nothing set means every store.
func ParseDrivers(flags []string, helmDriver string) ([]string, error) {
	var vals []string
	src := "--driver"
	for _, f := range flags {
		for v := range strings.SplitSeq(f, ",") {
			if v = strings.TrimSpace(v); v != "" {
				vals = append(vals, v)
			}
		}
	}
	if len(vals) == 0 && helmDriver != "" {
		vals, src = []string{helmDriver}, "HELM_DRIVER"
	}
	if len(vals) == 0 {
		return slices.Clone(AllDrivers), nil
	}
	var out []string
	for _, v := range vals {
		var d string
		switch strings.ToLower(v) {
		case "chunked":
			d = DriverChunked
		case "secret", "secrets":
			d = DriverSecret
		case "configmap", "configmaps":
			d = DriverConfigMap
		case "memory", "sql":
			return nil, fmt.Errorf("%s %q: Helm's %s driver keeps its records outside the cluster's API, where chunkview cannot read them; use chunked, secret or configmap", src, v, v)
		default:
			return nil, fmt.Errorf("%s %q: unknown store; use chunked, secret or configmap (comma-separated or repeated)", src, v)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	// Listing order, whatever order they were given in.
	slices.SortFunc(out, func(a, b string) int { return slices.Index(AllDrivers, a) - slices.Index(AllDrivers, b) })
	return out, nil
}

// DriverLabel is how tables name a store: short, as a column shows it.
func DriverLabel(d string) string {
	switch d {
	case DriverChunked:
		return "chunked"
	case DriverSecret:
		return "secret"
	case DriverConfigMap:
		return "cfgmap"
	}
	return d
}

// StoreResource returns the API resource that store d keeps its records in:
// configmaps for Helm's ConfigMaps driver, secrets otherwise.
func StoreResource(d string) string {
	if d == DriverConfigMap {
		return "configmaps"
	}
	return "secrets"
}

// StoreSkipError is the error of a listing that read some stores and had to skip
// others (a user may read Secrets and not ConfigMaps). The rows of the stores it
// read come with it.
type StoreSkipError struct {
	// Skipped says, per store, why it was skipped.
	Skipped map[string]error
}

func (e *StoreSkipError) Error() string {
	var parts []string
	for _, d := range AllDrivers {
		if err, ok := e.Skipped[d]; ok {
			parts = append(parts, fmt.Sprintf("%s store skipped: %v", d, err))
		}
	}
	return "not every store could be read: " + strings.Join(parts, "; ")
}

// Unwrap lets errors.Is find ErrPartial and each store's cause.
func (e *StoreSkipError) Unwrap() []error {
	out := []error{ErrPartial}
	for _, d := range AllDrivers {
		if err, ok := e.Skipped[d]; ok {
			out = append(out, err)
		}
	}
	return out
}

// storeErrors gathers the stores a listing had to skip, by store, with why.
type storeErrors map[string]error
