package kube_test

import (
	"reflect"
	"sort"
	"testing"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
)

// TestNamespaceIsTheReleaseNamespace: looking at a namespace lists the releases
// whose resources live there, wherever their records are (grafana-dashboards is
// stored in demo and deployed to monitoring). When listing every namespace is
// forbidden, the records beside the release are still found. This is the
// narrowing alone, so the demo's in-memory cluster serves.
func TestNamespaceIsTheReleaseNamespace(t *testing.T) {
	ctx := t.Context()
	cluster := fakeapi.NewCluster()
	if _, err := demo.Seed(ctx, cluster, demo.SeedOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := kube.Config{Driver: demo.DriverConfig()}
	names := func(c *kube.Client) []string {
		t.Helper()
		rows, err := c.Releases(ctx)
		if err != nil {
			t.Fatalf("Releases in %s: %v", c.Config().Namespace, err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Latest.Name)
		}
		sort.Strings(out)
		return out
	}
	base := kube.New(cluster.Clientset(), cluster.Metadata(), demo.DiscardKubeClients, cfg)
	for ns, want := range map[string][]string{
		"demo":       {"podinfo", "web-frontend"},
		"monitoring": {"grafana-dashboards"},
		"payments":   {"fraud-model", "ledger", "payments-api"},
	} {
		if got := names(base.WithNamespace(ns, false)); !reflect.DeepEqual(got, want) {
			t.Errorf("-n %s: %v, want %v", ns, got, want)
		}
	}

	// A user who may list secrets in payments only: no error, the records there.
	cluster.Authorize(func(ns, verb, resource string) (bool, string) {
		return ns == "payments", ""
	})
	if got, want := names(base.WithNamespace("payments", false)), []string{"fraud-model", "ledger", "payments-api"}; !reflect.DeepEqual(got, want) {
		t.Errorf("-n payments, namespace-scoped user: %v, want %v", got, want)
	}
}
