package kube_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// TestDiff compares revisions stored on the cluster, written by either driver:
// resources added, removed and changed, and passwords masked unless revealed.
func TestDiff(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	const owner = "diff-owner"
	rels := history("shop", ns, 4, 20_000)
	// Revisions 1 and 2 by the original driver, 3 and 4 by chunkview's: one
	// release's history, as after OLMv1 handed it to a chunkview rollback.
	seed(t, originalDriver(ns, owner, 8<<10), rels[:2]...)
	seed(t, chunkviewDriver(ns, owner, 8<<10), rels[2:]...)

	c := connect(t, adminKubeconfig(t, ns), []string{"--owner", owner}, nil)

	byKey := func(res *revdiff.Result) map[string]revdiff.ResourceChange {
		out := map[string]revdiff.ResourceChange{}
		for _, rc := range res.Resources {
			out[rc.Key] = rc
		}
		return out
	}
	k := func(kind, name string) string { return kind + "/" + ns + "/" + name }

	res, err := kube.NewInspector(c).Diff(ctx, ns, "shop", 1, 2, kube.DiffOptions{})
	if err != nil {
		t.Fatalf("Diff 1..2: %v", err)
	}
	if res.Release != "shop" || res.From != 1 || res.To != 2 || res.Revealed || !res.Changed() {
		t.Errorf("Diff 1..2: %+v", res)
	}
	rc := byKey(res)
	if rc[k("ConfigMap", "shop-extra")].Change != revdiff.Added {
		t.Errorf("shop-extra: %+v, want added", rc[k("ConfigMap", "shop-extra")])
	}
	cfg := rc[k("ConfigMap", "shop-config")]
	if cfg.Change != revdiff.Changed || !strings.Contains(cfg.Diff, "-  color: green") || !strings.Contains(cfg.Diff, "+  color: red") {
		t.Errorf("shop-config: %v\n%s", cfg.Change, cfg.Diff)
	}
	db := rc[k("Secret", "shop-db")]
	if db.Change != revdiff.Changed || !strings.Contains(db.Diff, revdiff.MaskPrefix) {
		t.Errorf("shop-db: %v\n%s", db.Change, db.Diff)
	}
	if blob := rc[k("ConfigMap", "shop-blob")]; blob.Change != revdiff.Changed {
		t.Errorf("shop-blob: %v", blob.Change)
	}
	if !strings.Contains(res.Values.Diff, "replicaCount") || !strings.Contains(res.Values.Diff, revdiff.MaskPrefix) {
		t.Errorf("values diff:\n%s", res.Values.Diff)
	}
	if !strings.Contains(res.Chart.Diff, "1.2.0") {
		t.Errorf("chart diff:\n%s", res.Chart.Diff)
	}
	if out := res.Unified(); strings.Contains(out, "hunter2") {
		t.Errorf("a masked diff shows a password:\n%s", out)
	}

	// Across the two drivers' records, and with a resource removed.
	res, err = kube.NewInspector(c).Diff(ctx, ns, "shop", 2, 3, kube.DiffOptions{})
	if err != nil {
		t.Fatalf("Diff 2..3: %v", err)
	}
	if got := byKey(res)[k("ConfigMap", "shop-extra")].Change; got != revdiff.Removed {
		t.Errorf("shop-extra 2..3: %v, want removed", got)
	}
	if strings.Contains(res.Unified(), "hunter2") {
		t.Errorf("a masked diff shows a password")
	}

	// Revealed, the passwords show as they are.
	res, err = kube.NewInspector(c).Diff(ctx, ns, "shop", 1, 2, kube.DiffOptions{Reveal: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hunter2-shop-rev1", "hunter2-shop-rev2"} {
		if !strings.Contains(res.Values.Diff, want) || !strings.Contains(byKey(res)[k("Secret", "shop-db")].Diff, want) {
			t.Errorf("revealed diff lacks %s:\n%s", want, res.Unified())
		}
	}

	// Same revision: nothing changed.
	res, err = kube.NewInspector(c).Diff(ctx, ns, "shop", 4, 4, kube.DiffOptions{})
	if err != nil || res.Changed() {
		t.Errorf("Diff 4..4: changed %v, %v", res != nil && res.Changed(), err)
	}

	// A revision that does not exist, and one that cannot be read.
	if _, err := kube.NewInspector(c).Diff(ctx, ns, "shop", 1, 9, kube.DiffOptions{}); err == nil {
		t.Errorf("Diff to revision 9 succeeded")
	} else {
		mustContain(t, mustErrIs(t, err, kube.ErrNotFound), "has no revision 9", "1..4")
	}
	lost := chunkNames(t, ns, storage.RecordKey("shop", 1))[0]
	if err := secrets(ns).Delete(ctx, lost, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// This client decoded revision 1 already and keeps it by the index's
	// resourceVersion (chunks are named by their content, so the content it read is
	// still right); a fresh one must read the chunks.
	if _, err := kube.NewInspector(c).Diff(ctx, ns, "shop", 1, 2, kube.DiffOptions{}); err != nil {
		t.Errorf("Diff from a revision decoded before its chunk went: %v", err)
	}
	c = connect(t, adminKubeconfig(t, ns), []string{"--owner", owner}, nil)
	_, err = kube.NewInspector(c).Diff(ctx, ns, "shop", 1, 2, kube.DiffOptions{})
	if err == nil {
		t.Fatalf("Diff from a revision with a missing chunk succeeded")
	}
	mustContain(t, err.Error(), "revision 1 of \"shop\" cannot be read", lost)
}
