package apis

import (
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// Lifecycle is what k8s.io/api's generated lifecycle methods say of one kind
// at one version: the release that deprecated it, the one that stopped serving
// it, and the kind that replaces it (zero when the data names none).
type Lifecycle struct {
	Deprecated, Removed Version
	Replacement         schema.GroupVersionKind
}

// The generated methods (prerelease-lifecycle-gen) on the types of k8s.io/api
// and of apiextensions: each pre-release type carries them.
type (
	lcDeprecated  interface{ APILifecycleDeprecated() (int, int) }
	lcRemoved     interface{ APILifecycleRemoved() (int, int) }
	lcReplacement interface {
		APILifecycleReplacement() schema.GroupVersionKind
	}
)

var (
	lifecycleOnce sync.Once
	lifecycles    map[schema.GroupVersionKind]Lifecycle
)

// LifecycleOf returns the lifecycle data of gvk, and false for a kind the data
// does not cover: a GA kind, a custom resource, or a removal old enough that
// k8s.io/api no longer carries the type (removals.go covers those).
func LifecycleOf(gvk schema.GroupVersionKind) (Lifecycle, bool) {
	lifecycleOnce.Do(func() { lifecycles = readLifecycles() })
	l, ok := lifecycles[gvk]
	return l, ok
}

// readLifecycles reads the lifecycle methods of every type client-go's scheme
// registers, and apiextensions' (whose CRD v1beta1 Helm charts carried), off a
// scheme of its own: client-go's global one is changed by whoever imports
// Helm, and this answer must not depend on that.
func readLifecycles() map[schema.GroupVersionKind]Lifecycle {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1beta1.AddToScheme, apiextensionsv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			// The schemes' registrations are generated and static: an error
			// here is a broken build of k8s.io/api, which every test shows.
			return map[schema.GroupVersionKind]Lifecycle{}
		}
	}
	out := map[schema.GroupVersionKind]Lifecycle{}
	for gvk := range s.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		obj, err := s.New(gvk)
		if err != nil {
			continue
		}
		r, ok := obj.(lcRemoved)
		if !ok {
			continue
		}
		var l Lifecycle
		l.Removed.Major, l.Removed.Minor = r.APILifecycleRemoved()
		if d, ok := obj.(lcDeprecated); ok {
			l.Deprecated.Major, l.Deprecated.Minor = d.APILifecycleDeprecated()
		}
		if p, ok := obj.(lcReplacement); ok {
			l.Replacement = p.APILifecycleReplacement()
		}
		out[gvk] = l
	}
	return out
}
