package testcluster

import (
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// OLMv1's resources, as the minimal CRDs of InstallOLMv1 serve them.
var (
	ClusterExtensions = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterextensions"}
	ClusterObjectSets = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterobjectsets"}
)

// HelmReleases is Flux's HelmRelease resource, as InstallFlux serves it.
var HelmReleases = schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}

// InstallFlux installs a minimal namespaced HelmRelease CRD of Flux's
// helm-controller (v2, keeping whatever it is given, with a status subresource),
// waits until it is served, and uninstalls it when the test ends.
func (c *Cluster) InstallFlux(t testing.TB) {
	t.Helper()
	crd := olmCRD("HelmRelease", "helmreleases")
	crd.Name = "helmreleases.helm.toolkit.fluxcd.io"
	crd.Spec.Group = "helm.toolkit.fluxcd.io"
	crd.Spec.Scope = apiextensionsv1.NamespaceScoped
	crd.Spec.Versions[0].Name = "v2"
	c.installCRDs(t, crd)
}

// installCRDs installs crds, waits until they are served, and uninstalls them
// when the test ends.
func (c *Cluster) installCRDs(t testing.TB, crds ...*apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	opts := envtest.CRDInstallOptions{CRDs: crds, MaxTime: 30 * time.Second, PollInterval: 100 * time.Millisecond}
	if _, err := envtest.InstallCRDs(c.Config, opts); err != nil {
		t.Fatalf("install CRDs: %v", err)
	}
	t.Cleanup(func() {
		if err := envtest.UninstallCRDs(c.Config, opts); err != nil {
			t.Errorf("uninstall CRDs: %v", err)
		}
	})
}

// olmCRD is a minimal cluster-scoped CRD of OLMv1's group that keeps whatever it
// is given, with a status subresource.
func olmCRD(kind, plural string) *apiextensionsv1.CustomResourceDefinition {
	keep := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".olm.operatorframework.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "olm.operatorframework.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: lower(kind)},
			Scope: apiextensionsv1.ClusterScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &keep,
				}},
			}},
		},
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// InstallOLMv1 installs minimal ClusterExtension and, with objectSets, ClusterObjectSet
// CRDs, waits until they are served, and uninstalls them when the test ends, so
// that the tests after it see a cluster without OLMv1.
func (c *Cluster) InstallOLMv1(t testing.TB, objectSets bool) {
	t.Helper()
	c.installCRDs(t, OLMv1CRDs(objectSets)...)
}

// OLMv1CRDs are the minimal CRDs InstallOLMv1 installs: ClusterExtension and, with
// objectSets, ClusterObjectSet. hack/bench installs them on its own cluster.
func OLMv1CRDs(objectSets bool) []*apiextensionsv1.CustomResourceDefinition {
	crds := []*apiextensionsv1.CustomResourceDefinition{olmCRD("ClusterExtension", "clusterextensions")}
	if objectSets {
		crds = append(crds, olmCRD("ClusterObjectSet", "clusterobjectsets"))
	}
	return crds
}
