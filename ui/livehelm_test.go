package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// TestLiveHelmRowsKeepTheirDeployTime: a release Helm's Secrets driver writes
// while the live view runs (three upgrades, each a create then an update, as the
// demo's background seed writes them) ends as one row, of its latest revision
// deployed, aged by when it was deployed rather than when its record was last
// written, with nothing left being read.
func TestLiveHelmRowsKeepTheirDeployTime(t *testing.T) {
	f := newFixture(t)
	cfg := testConfig()
	cfg.Drivers = kube.AllDrivers
	c := kube.New(f.cluster.Clientset(), f.cluster.Metadata(), demo.DiscardKubeClients, cfg)
	h := newHarness(t, c, Options{Watch: true}, 120, 40)
	h.contains("● LIVE", "web")
	d := driver.NewSecrets(f.cluster.Clientset().CoreV1().Secrets("default"))
	deployed := testNow.Add(-72 * time.Hour)
	for v := 1; v <= 3; v++ {
		rel := webRelease(v, release.StatusPendingUpgrade)
		rel.Name = "hs"
		rel.Info.LastDeployed = helmtime.Time{Time: deployed.Add(time.Duration(v) * time.Minute)}
		if err := d.Create(storage.RecordKey("hs", v), rel); err != nil {
			t.Fatal(err)
		}
		rel.Info.Status = release.StatusDeployed
		if err := d.Update(storage.RecordKey("hs", v), rel); err != nil {
			t.Fatal(err)
		}
	}
	rs := h.m.stack[0].(*releases.Screen)
	row := func() *releases.ReleaseItem {
		for i := range rs.Items {
			if rs.Items[i].Row.Latest.Name == "hs" {
				return &rs.Items[i]
			}
		}
		return nil
	}
	h.waitLive("hs revision 3 deployed and read", func() bool {
		it := row()
		return it != nil && it.Filled && it.Row.Latest.Revision == 3 && it.Row.Latest.Status == "deployed" && it.Row.Latest.Known
	})
	if got, want := row().Row.Latest.Updated, deployed.Add(3*time.Minute); !got.Equal(want) {
		t.Errorf("hs is aged from %s, want its deploy time %s", got, want)
	}
	if len(rs.Inflight) != 0 {
		t.Errorf("rows still being read: %v", rs.Inflight)
	}
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, " hs ") && !regexp.MustCompile(` [23]d(\d+h)? `).MatchString(l) {
			t.Errorf("hs's row: %q", l)
		}
	}
	h.lacks("reading")
}
