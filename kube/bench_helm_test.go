package kube_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"helm.sh/helm/v3/pkg/action"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
)

// helmListRow is what both listings of Helm's records must agree on, per release.
type helmListRow struct {
	Revision                       int
	Status, Chart, Version, AppVer string
}

// chunkviewHelmList lists what `chunkview ls -A --driver secret` lists: Releases,
// then FillDetails and CheckHealth of the latest rows (which find nothing left to
// do for Helm's records: the listing read each one's chart already).
func chunkviewHelmList(ctx context.Context, cs kubernetes.Interface, md metadata.Interface) ([]kube.ReleaseRow, error) {
	c := kube.New(cs, md, nil, kube.Config{AllNamespaces: true, Drivers: []string{kube.DriverSecret}})
	rows, err := c.Releases(ctx)
	if err != nil {
		return nil, err
	}
	todo := make([]*kube.RevisionRow, len(rows))
	for i := range rows {
		todo[i] = &rows[i].Latest
	}
	if err := c.FillDetails(ctx, todo); err != nil {
		return nil, err
	}
	if err := kube.NewChecker(c).CheckHealth(ctx, todo); err != nil {
		return nil, err
	}
	return rows, nil
}

// helmList is `helm ls -A --all`: Helm v3's action.List over its Secrets driver in
// every namespace.
func helmList(cs kubernetes.Interface) ([]*release.Release, error) {
	ac := &action.Configuration{
		Releases:   helmstorage.Init(driver.NewSecrets(cs.CoreV1().Secrets(""))),
		KubeClient: &kubefake.PrintingKubeClient{Out: io.Discard},
		Log:        func(string, ...interface{}) {},
	}
	l := action.NewList(ac)
	l.All, l.AllNamespaces = true, true
	l.SetStateMask()
	return l.Run()
}

// BenchmarkHelmSecretsList lists releases × revisions records written by Helm's own
// Secrets driver, all namespaces, two ways in one run: chunkview (a metadata list,
// then the records not superseded, each read up to its chart's metadata) and Helm
// v3's action.List (every record, decoded whole). Read the ratio of ns/op, req/op
// and recvB/op between the two sub-benchmarks. Both see every Helm record on the
// test cluster: run it alone (-run '^$') for the counts in its name.
func BenchmarkHelmSecretsList(b *testing.B) {
	const releases, revisions = 100, 5
	ns := cluster.Namespace(b)
	benchSeed(b, driver.NewSecrets(cluster.Client.CoreV1().Secrets(ns)), ns, releases, revisions)
	ctx := context.Background()

	// Both must list the same releases at the same revisions, once, before timing.
	cvCounter, helmCounter := &benchCounter{}, &benchCounter{}
	cvCS, cvMD := benchClients(b, cvCounter)
	helmCS, _ := benchClients(b, helmCounter)
	rows, err := chunkviewHelmList(ctx, cvCS, cvMD)
	if err != nil {
		b.Fatal(err)
	}
	rels, err := helmList(helmCS)
	if err != nil {
		b.Fatal(err)
	}
	got, want := map[string]helmListRow{}, map[string]helmListRow{}
	seeded := 0
	for _, rr := range rows {
		l := rr.Latest
		if !l.Known || l.Broken || !l.Checked {
			b.Fatalf("chunkview row %s/%s: known %v, broken %v (%s), checked %v (%s)", l.StorageNamespace, l.Name, l.Known, l.Broken, l.Problem, l.Checked, l.Unchecked)
		}
		if l.StorageNamespace == ns {
			seeded++
			if rr.Revisions != revisions {
				b.Fatalf("chunkview row %s/%s: %d revisions, want %d", ns, l.Name, rr.Revisions, revisions)
			}
		}
		got[l.Summary.Namespace+"/"+l.Name] = helmListRow{l.Revision, l.Status, l.Summary.Chart, l.Summary.ChartVersion, l.Summary.AppVersion}
	}
	for _, r := range rels {
		md := r.Chart.Metadata
		want[r.Namespace+"/"+r.Name] = helmListRow{r.Version, r.Info.Status.String(), md.Name, md.Version, md.AppVersion}
	}
	if seeded != releases {
		b.Fatalf("chunkview listed %d releases in %s, want %d", seeded, ns, releases)
	}
	if !maps.Equal(got, want) {
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if got[k] != want[k] {
				b.Fatalf("%d rows from chunkview, %d from Helm; %s: chunkview %+v, Helm %+v", len(got), len(want), k, got[k], want[k])
			}
		}
		b.Fatalf("%d rows from chunkview, %d from Helm: chunkview lists releases Helm does not", len(got), len(want))
	}
	if r := got[ns+"/rel-0000"]; r.Revision != revisions || r.Version != fmt.Sprintf("1.%d.0", revisions) {
		b.Fatalf("rel-0000: %+v, want revision %d of chart 1.%d.0", r, revisions, revisions)
	}

	b.Run(fmt.Sprintf("releases=%d,revisions=%d/chunkview", releases, revisions), func(b *testing.B) {
		b.ReportAllocs()
		cvCounter.reset()
		for b.Loop() {
			rows, err := chunkviewHelmList(ctx, cvCS, cvMD)
			if err != nil {
				b.Fatal(err)
			}
			if len(rows) != len(want) {
				b.Fatalf("got %d rows, want %d", len(rows), len(want))
			}
		}
		cvCounter.report(b, b.N)
	})
	b.Run(fmt.Sprintf("releases=%d,revisions=%d/helm", releases, revisions), func(b *testing.B) {
		b.ReportAllocs()
		helmCounter.reset()
		for b.Loop() {
			rels, err := helmList(helmCS)
			if err != nil {
				b.Fatal(err)
			}
			if len(rels) != len(want) {
				b.Fatalf("got %d releases, want %d", len(rels), len(want))
			}
		}
		helmCounter.report(b, b.N)
	})
}
