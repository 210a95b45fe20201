package history

import (
	"testing"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// fixedDemo is the demo's samples seeded up to the harness's clock, so that
// its times read the same on every run, with a client over every namespace
// and store that reads an unreadable revision once.
func fixedDemo(t *testing.T) *kube.Client {
	t.Helper()
	c := fakeapi.NewCluster()
	if _, err := demo.Seed(t.Context(), c, demo.SeedOptions{Now: screentest.Now}); err != nil {
		t.Fatal(err)
	}
	cfg := screentest.Config()
	cfg.AllNamespaces, cfg.Namespace = true, ""
	cfg.Drivers = kube.AllDrivers
	cfg.Driver = demo.DriverConfig()
	cfg.Driver.ReadRetry = -1
	return kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, cfg)
}

// TestDetailExpands: when a failure's reason and its next step do not fit the
// lines the table can give (at 80x9, an 80x12 terminal, keeping three rows),
// the last line shown ends in "… e: whole"; e gives them every line but one
// row's, and shows them whole; e again gives the rows back.
func TestDetailExpands(t *testing.T) {
	s := New(screentest.Common(fixedDemo(t)), "payments", "ledger")
	h := screentest.New(t, s, 80, 9)
	h.Contains("✗ Revision 3 cannot be read", "does not exist … e: whole").Lacks("c: see which Secret")
	h.Press("e").Contains("✗ Revision 3 cannot be read", "does not exist", "c: see which Secret is missing or damaged", "R on a good revision: roll back to it").Lacks("e: whole")
	h.Press("e").Contains("… e: whole").Lacks("c: see which Secret")
}
