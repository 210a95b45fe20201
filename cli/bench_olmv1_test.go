package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// BenchmarkOLMv1List measures `ls -A --profile olmv1` over an OLMv1-shaped fleet
// (operator-controller's records: 20 releases of 3 revisions, about 200 KB each
// over 64 KiB chunks, written by helm-operator-plugins' driver into one storage
// namespace, each owned by its ClusterExtension) beside the metadata floor: one
// metadata-only list of the same index Secrets, which no listing can go below.
// Both run in one process, one after the other; read the ratio of req/op and
// recvB/op, and recvB/op against storedB (the data the records hold). Every ls
// makes the same requests, the first as the next: the discovery it needs is
// read each time, so one -benchtime's figures are another's.
func BenchmarkOLMv1List(b *testing.B) {
	const releases, revisions = 20, 3
	cluster.InstallOLMv1(b, false)
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		b.Fatal(err)
	}
	system := cluster.Namespace(b)
	d := hopDriver(system, "operator-controller", 64<<10)
	var stored int64
	for i := range releases {
		name := fmt.Sprintf("ext-%02d", i)
		apps := cluster.Namespace(b)
		for rev := 1; rev <= revisions; rev++ {
			st := release.StatusSuperseded
			if rev == revisions {
				st = release.StatusDeployed
			}
			vals := valuesFor(name, rev)
			vals["blob"] = noise(fmt.Sprintf("%s-%d", name, rev), 200_000)
			ts := helmtime.Time{Time: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(rev) * time.Hour)}
			rel := &release.Release{Name: name, Namespace: apps, Version: rev, Chart: testChart(), Config: vals,
				Manifest: "---\n# Source: app/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n",
				Info:     &release.Info{FirstDeployed: ts, LastDeployed: ts, Status: st, Description: "Upgrade complete"}}
			if err := d.Create(storage.RecordKey(name, rev), rel); err != nil {
				b.Fatalf("store %s %d: %v", name, rev, err)
			}
		}
		olmOwn(b, system, name, revisions)
		createExtensionFor(b, dyn, name, apps, "")
		stored += storedBytes(b, system, name)
	}
	kubeconfig := kubetest.WriteKubeconfig(b, cluster.Config, "default")
	cache := filepath.Join(b.TempDir(), "cache")
	args := []string{"ls", "-A", "-o", "json", "--profile", "olmv1", "--storage-namespace", system,
		"--kubeconfig", kubeconfig, "--cache-dir", cache}

	b.Run("chunkview ls -A --profile olmv1", func(b *testing.B) {
		stats := &kube.Stats{}
		for b.Loop() {
			var out, errb bytes.Buffer
			app := &cli.App{Stats: stats, IsTerminal: func(io.Reader) bool { return false }}
			if code := app.Run(context.Background(), args, strings.NewReader(""), &out, &errb); code != cli.ExitOK {
				b.Fatalf("ls: exit %d: %s", code, errb.String())
			}
			var ls cli.Releases
			if err := json.Unmarshal(out.Bytes(), &ls); err != nil || len(ls.Releases) != releases {
				b.Fatalf("ls listed %d releases (%v), want %d", len(ls.Releases), err, releases)
			}
		}
		b.ReportMetric(float64(stats.Total())/float64(b.N), "req/op")
		b.ReportMetric(float64(stats.BytesReceived())/float64(b.N), "recvB/op")
		b.ReportMetric(float64(stored), "storedB")
	})

	b.Run("floor: metadata-only list of the index Secrets", func(b *testing.B) {
		stats := &kube.Stats{}
		cfg := rest.CopyConfig(cluster.Config)
		stats.Count(cfg)
		md, err := metadata.NewForConfig(cfg)
		if err != nil {
			b.Fatal(err)
		}
		secrets := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
		for b.Loop() {
			list, err := md.Resource(secrets).Namespace(system).List(context.Background(), metav1.ListOptions{LabelSelector: storage.LabelOwner + "=operator-controller," + storage.LabelType + "=" + storage.TypeIndex})
			if err != nil || len(list.Items) != releases*revisions {
				b.Fatalf("floor listed %d index Secrets (%v), want %d", len(list.Items), err, releases*revisions)
			}
		}
		b.ReportMetric(float64(stats.Total())/float64(b.N), "req/op")
		b.ReportMetric(float64(stats.BytesReceived())/float64(b.N), "recvB/op")
		b.ReportMetric(float64(stored), "storedB")
	})
}
