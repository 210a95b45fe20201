package releases

import (
	"strings"
	"testing"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// TestPartialListing: a user who may not list across all namespaces sees the
// releases of the namespaces they may read, with a note on what is left out.
func TestPartialListing(t *testing.T) {
	f := screentest.NewFixture(t)
	f.Cluster.Authorize(screentest.AllowSecrets("default", "get", "list"))
	cfg := screentest.Config()
	cfg.AllNamespaces = true
	client := kube.New(f.Cluster.Clientset(), f.Cluster.Metadata(), demo.DiscardKubeClients, cfg)
	rs, h := openOn(t, client, 120, 37)
	h.Contains("web", "worker", "⚠ 4 releases, from default only: other namespaces may not be read (--namespaces names more)")
	if st, isErr := h.Status(); !isErr || !strings.Contains(st, "only some namespaces could be read") {
		t.Errorf("status line %q (error %v) does not say only some namespaces could be read", st, isErr)
	}
	h.Lacks("cache", "Refresh failed")
	if st, _ := h.Status(); strings.Contains(st, "Refresh failed") {
		t.Errorf("status line %q", st)
	}
	if len(rs.Items) != 4 || rs.partial == nil {
		t.Fatalf("listed %d releases (partial %v), want default's 4 with a note", len(rs.Items), rs.partial)
	}

	// A user who may read no namespace at all gets the error, not an empty list.
	f.Cluster.Authorize(screentest.AllowSecrets("nowhere", "get", "list"))
	_, h2 := openOn(t, client, 120, 37)
	h2.Contains("Forbidden").Lacks("releases, from")
}
