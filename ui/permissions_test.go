package ui

import (
	"testing"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// TestPartialListing: a user who may not list across all namespaces sees the
// releases of the namespaces they may read, with a note on what is left out.
func TestPartialListing(t *testing.T) {
	f := newFixture(t)
	f.Cluster.Authorize(allowSecrets("default", "get", "list"))
	cfg := testConfig()
	cfg.AllNamespaces = true
	client := kube.New(f.Cluster.Clientset(), f.Cluster.Metadata(), demo.DiscardKubeClients, cfg)
	h := newHarness(t, client, Options{}, 120, 40)
	h.contains("web", "worker", "⚠ 4 releases, from default only: other namespaces may not be read (--namespaces names more)")
	h.contains("only some namespaces could be read")
	h.lacks("cache", "Refresh failed")
	rs := h.top().(*releases.Screen)
	if len(rs.Items) != 4 || rs.Partial == nil {
		t.Fatalf("listed %d releases (partial %v), want default's 4 with a note", len(rs.Items), rs.Partial)
	}

	// A user who may read no namespace at all gets the error, not an empty list.
	f.Cluster.Authorize(allowSecrets("nowhere", "get", "list"))
	h2 := newHarness(t, client, Options{}, 120, 40)
	h2.contains("Forbidden").lacks("releases, from")
}
