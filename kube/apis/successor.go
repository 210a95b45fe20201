package apis

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Successor is the version, served by the cluster, that replaces a removed
// one, and where that answer came from.
type Successor struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// From says where the successor was found: k8s.io/api's lifecycle data,
	// the table of removals (with the release that removed the old one), or
	// discovery (a version of the same group serving the kind: for a custom
	// resource, a version its CRD still serves).
	From string `json:"from"`
}

// The sources a Successor comes from.
const (
	FromLifecycle = "k8s.io/api lifecycle data"
	FromDiscovery = "served by the cluster in the same group"
)

// maxChain bounds the walk from a replacement to its own replacement
// (flowcontrol v1beta1 → v1beta3 → v1): the data holds chains of two.
const maxChain = 8

// Successor returns the served version that replaces kind at apiVersion, and
// false when the cluster serves none (PodSecurityPolicy, or a custom resource
// whose CRD is gone). It follows k8s.io/api's replacements, then the table's,
// each to its own replacement while the cluster does not serve it; then any
// version of the same group that serves the kind.
func (s *Served) Successor(apiVersion, kind string) (Successor, bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return Successor{}, false
	}
	start := gv.WithKind(kind)
	cur := start
	for range maxChain {
		next, from := replacement(cur)
		if next.Empty() {
			break
		}
		if s.serves(next) == IsServed {
			return successorOf(next, from), true
		}
		cur = next
	}
	if c, ok := s.servedVersionOf(start); ok {
		return successorOf(c, FromDiscovery), true
	}
	return Successor{}, false
}

// replacement is the next version of gvk, by the lifecycle data, else by the
// table of removals.
func replacement(gvk schema.GroupVersionKind) (schema.GroupVersionKind, string) {
	// A replacement of another kind is taken for an error in the data:
	// networking.k8s.io/v1beta1 IngressClass names IngressClassList. No
	// removed kind that a manifest holds was replaced by another kind.
	if l, ok := LifecycleOf(gvk); ok && !l.Replacement.Empty() && l.Replacement.Kind == gvk.Kind {
		return l.Replacement, FromLifecycle
	}
	if r, ok := removalOf(gvk); ok && r.To != "" {
		gv, err := schema.ParseGroupVersion(r.To)
		if err == nil {
			return gv.WithKind(gvk.Kind), fmt.Sprintf("Kubernetes %s removed %s", r.RemovedIn, gvk.GroupVersion())
		}
	}
	return schema.GroupVersionKind{}, ""
}

func successorOf(gvk schema.GroupVersionKind, from string) Successor {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return Successor{APIVersion: apiVersion, Kind: kind, From: from}
}

// removedIn returns the release that stopped serving gvk, by the lifecycle
// data, else the table; zero when neither knows.
func removedIn(gvk schema.GroupVersionKind) Version {
	if l, ok := LifecycleOf(gvk); ok {
		return l.Removed
	}
	if r, ok := removalOf(gvk); ok {
		return r.RemovedIn
	}
	return Version{}
}
