package apis

import (
	"errors"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// Served is what a cluster serves, from one discovery pass: for each group
// version, the kinds of its resources, and for each group, its versions with
// the preferred one first. It is built once and then only read.
type Served struct {
	kinds    map[schema.GroupVersion]map[string]bool
	versions map[string][]string
	// unknown are the group versions discovery listed but whose resources it
	// could not read (an aggregated API whose backend is down): nothing is
	// said of their kinds, neither served nor not.
	unknown map[schema.GroupVersion]bool
	// Version is the server's release, when known: the lifecycle data's
	// deprecations are judged against it.
	Version Version
}

// Serving says what a cluster serves of one apiVersion and kind.
type Serving int

const (
	// IsServed: discovery lists the kind at that version.
	IsServed Serving = iota
	// NotServed: discovery does not list it, and its group version was read.
	NotServed
	// ServingUnknown: discovery could not read the group version's resources.
	ServingUnknown
)

// NewServed builds Served from what discovery.ServerGroupsAndResources returns:
// the groups, the resource lists, and its error, whose failed group versions
// (discovery.ErrGroupDiscoveryFailed) are recorded as unknown rather than as
// not served. version is the server's, zero when not known.
func NewServed(groups []*metav1.APIGroup, lists []*metav1.APIResourceList, discoveryErr error, version Version) *Served {
	s := &Served{
		kinds:    map[schema.GroupVersion]map[string]bool{},
		versions: map[string][]string{},
		unknown:  map[schema.GroupVersion]bool{},
		Version:  version,
	}
	for _, g := range groups {
		if g == nil {
			continue
		}
		var vs []string
		if p := g.PreferredVersion.Version; p != "" {
			vs = append(vs, p)
		}
		for _, v := range g.Versions {
			if v.Version != g.PreferredVersion.Version {
				vs = append(vs, v.Version)
			}
		}
		s.versions[g.Name] = vs
	}
	for _, l := range lists {
		if l == nil {
			continue
		}
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		if s.kinds[gv] == nil {
			s.kinds[gv] = map[string]bool{}
		}
		if _, ok := s.versions[gv.Group]; !ok {
			s.versions[gv.Group] = []string{gv.Version}
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource: its kind (Scale, Eviction) is not an object of the group
			}
			s.kinds[gv][r.Kind] = true
		}
	}
	var failed *discovery.ErrGroupDiscoveryFailed
	if errors.As(discoveryErr, &failed) {
		for gv := range failed.Groups {
			s.unknown[gv] = true
		}
	}
	return s
}

// Serves says whether the cluster serves kind at apiVersion ("apps/v1", "v1").
func (s *Served) Serves(apiVersion, kind string) Serving {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return NotServed
	}
	return s.serves(gv.WithKind(kind))
}

func (s *Served) serves(gvk schema.GroupVersionKind) Serving {
	gv := gvk.GroupVersion()
	if s.kinds[gv][gvk.Kind] {
		return IsServed
	}
	if s.unknown[gv] {
		return ServingUnknown
	}
	return NotServed
}

// servedVersionOf returns a version of gvk's group that serves its kind: the
// group's preferred version when it does, else the first that does, in
// discovery's order. For a custom resource that is a version its CRD serves.
func (s *Served) servedVersionOf(gvk schema.GroupVersionKind) (schema.GroupVersionKind, bool) {
	for _, v := range s.versions[gvk.Group] {
		if v == gvk.Version {
			continue
		}
		c := schema.GroupVersionKind{Group: gvk.Group, Version: v, Kind: gvk.Kind}
		if s.serves(c) == IsServed {
			return c, true
		}
	}
	return schema.GroupVersionKind{}, false
}
