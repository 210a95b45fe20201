package testcluster

import (
	"context"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
// when the test ends, waiting until they are gone.
//
// envtest's UninstallCRDs only asks for the deletion, and its InstallCRDs updates a
// CRD that still exists: a test that installs a CRD right after the one before it
// uninstalled it would update the terminating CRD and then wait for a resource the
// API server is about to drop (the wait timed out on a slow machine). So each
// install first waits out a deletion of the same name, and each cleanup waits for
// its own.
func (c *Cluster) installCRDs(t testing.TB, crds ...*apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	cl, err := client.New(c.Config, client.Options{})
	if err != nil {
		t.Fatalf("install CRDs: %v", err)
	}
	c.waitCRDsGone(t, cl, crds, true)
	opts := envtest.CRDInstallOptions{CRDs: crds, MaxTime: crdWait, PollInterval: 100 * time.Millisecond}
	if _, err := envtest.InstallCRDs(c.Config, opts); err != nil {
		t.Fatalf("install CRDs: %v", err)
	}
	t.Cleanup(func() {
		if err := envtest.UninstallCRDs(c.Config, opts); err != nil {
			t.Errorf("uninstall CRDs: %v", err)
			return
		}
		c.waitCRDsGone(t, cl, crds, false)
	})
}

// crdWait bounds each wait for the API server to serve or drop a CRD: seconds on
// a workstation, longer on a loaded two-core CI machine.
const crdWait = 2 * time.Minute

// waitCRDsGone waits until none of crds exists. With terminatingOnly, a CRD that
// exists and is not being deleted is left to InstallCRDs, which updates it.
func (c *Cluster) waitCRDsGone(t testing.TB, cl client.Client, crds []*apiextensionsv1.CustomResourceDefinition, terminatingOnly bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), crdWait)
	defer cancel()
	for _, crd := range crds {
		for {
			var got apiextensionsv1.CustomResourceDefinition
			err := cl.Get(ctx, client.ObjectKey{Name: crd.Name}, &got)
			if apierrors.IsNotFound(err) || (err == nil && terminatingOnly && got.DeletionTimestamp == nil) {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("CRD %s is still there after %v (last error: %v)", crd.Name, crdWait, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
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
