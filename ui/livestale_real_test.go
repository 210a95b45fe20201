package ui

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// TestLiveDetailFollowsStatusRewrite (issue 29, item 7): a release in Helm's
// ConfigMaps store, on a real API server, whose latest record is
// pending-upgrade, is open in the live list; Helm then rewrites that record as
// deployed, with a larger release. The detail line under the selected row
// follows the watch without r: the new description, none of "Preparing
// upgrade", and the history's size with the new record's, as read from the
// server. It kept the pending record's description and size when the rewrite,
// whose metadata says nothing of its payload, was taken as read already.
func TestLiveDetailFollowsStatusRewrite(t *testing.T) {
	ns := cluster.Namespace(t)
	kc := kubetest.AdminKubeconfig(t, ns)
	cms := cluster.Client.CoreV1().ConfigMaps(ns)
	d := driver.NewConfigMaps(cms)
	now := time.Now()
	const name = "edge"
	v1 := simpleRelease(name, ns, 1, release.StatusDeployed, 4<<10, now.Add(-48*time.Hour))
	v2 := simpleRelease(name, ns, 2, release.StatusPendingUpgrade, 6<<10, now.Add(-time.Minute))
	for _, r := range []*release.Release{v1, v2} {
		if err := d.Create(storage.RecordKey(name, r.Version), r); err != nil {
			t.Fatal(err)
		}
	}
	client := kubetest.Connect(t, kc, []string{"-n", ns, "--driver", "configmap"}, nil)
	h := newHarness(t, client, Options{Watch: true, Now: time.Now}, 120, 40)
	rs := h.m.stack[0].(*releases.Screen)
	h.waitLive("edge listed pending-upgrade, read", func() bool {
		it := rs.Selected()
		return it != nil && it.Filled && it.Row.Latest.Status == "pending-upgrade"
	})
	h.contains(name, "pending-upgrade")

	// Helm's upgrade ends: the previous revision superseded, the pending one
	// rewritten deployed, its release grown.
	v1.Info.Status = release.StatusSuperseded
	if err := d.Update(storage.RecordKey(name, 1), v1); err != nil {
		t.Fatal(err)
	}
	done := simpleRelease(name, ns, 2, release.StatusDeployed, 24<<10, now.Add(-time.Minute))
	if err := d.Update(storage.RecordKey(name, 2), done); err != nil {
		t.Fatal(err)
	}
	sizes := map[int]int64{}
	for v := 1; v <= 2; v++ { // read back from the server
		cm, err := cms.Get(t.Context(), storage.RecordKey(name, v), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sizes[v] = int64(len(cm.Data["release"]))
	}
	// The list reads the records that are not superseded (kube's Helm store):
	// revision 1's size is not known, revision 2's is the deployed record's.
	want := "2 revisions holding ≥" + human.Bytes(sizes[2]) + " · Upgrade complete"
	h.waitLive("the detail line follows the rewrite to deployed", func() bool {
		it := rs.Selected()
		return it != nil && it.Filled && it.Row.Latest.Status == "deployed" && strings.Contains(h.screen(), want)
	})
	if scr := h.screen(); strings.Contains(scr, "Preparing upgrade") {
		t.Errorf("the screen still says what the pending record said:\n%s", scr)
	}
	if got := rs.Selected().Row.Latest.Summary.StoredBytes; got != sizes[2] {
		t.Errorf("the row's stored bytes %d, want the deployed record's %d", got, sizes[2])
	}
}
