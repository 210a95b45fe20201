package kube_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
)

// TestInvalidateDiscoveryResetsTheMapper: once a CRD drops a version,
// InvalidateDiscovery makes the live views' RESTMapper forget it too, not
// only ServedAPIs. The mapper builds its mapping from the discovery cache
// once and re-discovers only on a miss, so a version it mapped before stays
// mapped (a hit) unless the mapper itself is reset: the live views would go
// on reading Widgets at a version the server answers 404 for.
func TestInvalidateDiscoveryResetsTheMapper(t *testing.T) {
	c := connect(t, adminKubeconfig(t, "default"), nil, nil)
	lc, err := c.Live()
	if err != nil {
		t.Fatal(err)
	}
	gk := schema.GroupKind{Group: kubetest.WidgetGroup, Kind: "Widget"}
	mapped := false
	kubetest.InstallWidgetCRD(t, cluster.Config, func(ctx context.Context) (*apis.Served, error) {
		c.InvalidateDiscovery()
		s, err := kube.NewChecker(c).ServedAPIs(ctx)
		if err == nil && s.Serves(kubetest.WidgetGroup+"/v1alpha1", "Widget") == apis.IsServed {
			// While v1alpha1 is served, the mapper maps it: its mapping is
			// built, holding v1alpha1.
			if _, merr := lc.Mapper.RESTMapping(gk, "v1alpha1"); merr != nil {
				t.Fatalf("v1alpha1 is served, yet the mapper does not map it: %v", merr)
			}
			mapped = true
		}
		return s, err
	})
	if !mapped {
		t.Fatal("the mapper never mapped v1alpha1 while it was served: the test proves nothing")
	}
	// InstallWidgetCRD returned once ServedAPIs, after InvalidateDiscovery,
	// says v1alpha1 is not served: the mapper must say so too.
	m, err := lc.Mapper.RESTMapping(gk, "v1alpha1")
	if !meta.IsNoMatchError(err) {
		t.Fatalf("after InvalidateDiscovery the mapper still maps Widget at v1alpha1, which the CRD no longer serves: %+v, %v", m, err)
	}
	if _, err := lc.Mapper.RESTMapping(gk, "v1"); err != nil {
		t.Fatalf("Widget at v1 is served, yet the mapper does not map it: %v", err)
	}
}
