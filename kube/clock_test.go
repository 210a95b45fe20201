package kube_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestClientClockDatesRecords: the chunked records a client writes are dated
// by the client's clock (Config.Now), the clock it measures their ages and the
// pending lease with. The demo's clock starts at its snapshot's moment, hours
// before the time: a record dated by the time would read as written in the
// future. The demo's in-memory cluster serves, since that clock is the demo's.
func TestClientClockDatesRecords(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cluster := fakeapi.NewCluster()
	cluster.SetClock(func() time.Time { return at })
	c := kube.New(cluster.Clientset(), cluster.Metadata(), nil, kube.Config{Now: func() time.Time { return at }, Driver: demo.DriverConfig()})
	drv := storage.NewDriver(cluster.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, kube.ChunkedConfig(c.Config().Driver, cluster.Metadata(), "default"))
	rel := &release.Release{Name: "a", Namespace: "default", Version: 1, Info: &release.Info{Status: release.StatusDeployed}}
	if err := drv.Create(storage.RecordKey("a", 1), rel); err != nil {
		t.Fatal(err)
	}
	idx, err := cluster.Clientset().CoreV1().Secrets("default").Get(t.Context(), storage.RecordKey("a", 1), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := idx.Labels[storage.LabelCreatedAt], fmt.Sprint(at.Unix()); got != want {
		t.Errorf("createdAt %s, want the client's clock's %s", got, want)
	}
}
