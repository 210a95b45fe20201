package ui

import (
	"strings"
	"testing"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/components/table"
)

// TestLedgerRecovery is the demo's ledger flow end to end: its latest revision (3)
// cannot be read, and R on revision 2 shows, before ctrl+r, the one plan that deletes
// the unreadable record and rolls back to 2; ctrl+r applies it, and the release ends
// deployed. helm-operator-plugins' driver, not chunkview's, reads the result: a
// deployed revision 3 holding revision 2's values, 1 and 2 superseded.
func TestLedgerRecovery(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(table.Itoa(size[0])+"x"+table.Itoa(size[1]), func(t *testing.T) {
			c, client := demoClient(t, func(cfg *kube.Config) {
				cfg.Driver = demo.DriverConfig()
				cfg.Driver.ReadRetry = -1
			})
			h := newHarness(t, client, Options{}, size[0], size[1])
			h.press("/").typeText("ledger").press("enter", "enter")
			h.contains("BROKEN", "Revision 3 cannot be read")
			h.press("up", "R")
			// Revision 3 dropped, then 2 applied.
			h.contains("Revision 3 cannot be read: delete its record,", "ctrl+r: roll back to 2")
			if got := h.top().Title(); got != "roll back to 2" {
				t.Fatalf("R opened %q, want the rollback to 2", got)
			}
			h.press("ctrl+r")
			h.contains("✓").lacks("Rollback failed")

			orig := hopstorage.NewChunkedSecrets(c.Clientset().CoreV1().Secrets("payments"), storage.HelmOwner, hopstorage.ChunkedSecretsConfig{})
			want := map[int]release.Status{1: release.StatusSuperseded, 2: release.StatusSuperseded, 3: release.StatusDeployed}
			for rev, st := range want {
				r, err := orig.Get(storage.RecordKey("ledger", rev))
				if err != nil {
					t.Fatalf("revision %d, read by helm-operator-plugins: %v", rev, err)
				}
				if r.Info.Status != st {
					t.Errorf("revision %d is %s, want %s", rev, r.Info.Status, st)
				}
				if rev == 3 {
					db, _ := r.Config["database"].(map[string]interface{})
					if db["host"] != "pg-ledger-0.payments.svc" || r.Info.Description != "Rollback to 2" {
						t.Errorf("revision 3 holds database %v, description %q: want revision 2's values, rolled back to", db, r.Info.Description)
					}
				}
			}
			if _, err := orig.Get(storage.RecordKey("ledger", 4)); err == nil {
				t.Error("a revision 4 was written: the rollback should take the unreadable revision's number")
			}
			h.press("esc")
			screen := h.screen()
			if !strings.Contains(screen, "✓ deployed") || strings.Contains(screen, "BROKEN") {
				t.Errorf("history after the rollback:\n%s", screen)
			}
		})
	}
}
