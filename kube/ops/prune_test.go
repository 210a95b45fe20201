package ops_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

const pruneOwner = "helm"

// pruneHistory is six revisions with a failed one and the deployed one in the
// middle, and failed ones after it, as a release whose upgrades kept failing has.
func pruneHistory(name, ns string) []*release.Release {
	statuses := []release.Status{release.StatusSuperseded, release.StatusFailed, release.StatusDeployed, release.StatusFailed, release.StatusFailed, release.StatusFailed}
	var out []*release.Release
	for i, st := range statuses {
		out = append(out, makeRelease(name, ns, i+1, st, 20_000))
	}
	return out
}

// recordData is the data of every object of release name's revision rev in ns:
// what a prune of that revision frees.
func recordData(t *testing.T, store, ns, name string, rev int) int64 {
	t.Helper()
	key := storage.RecordKey(name, rev)
	var n int64
	switch store {
	case kube.DriverConfigMap:
		cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), key, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range cm.Data {
			n += int64(len(v))
		}
		return n
	case kube.DriverSecret:
		s, err := secrets(ns).Get(t.Context(), key, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return int64(len(s.Data["release"]))
	}
	// The index and its chunks all carry the key's label.
	for _, name := range secretsOfKey(t, ns, pruneOwner, key) {
		s, err := secrets(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n += int64(len(s.Data[storage.DataChunk]))
	}
	return n
}

// TestPruneEveryStore: prune --keep 2 of a history whose deployed revision is in
// the middle, in every store (and of chunked records helm-operator-plugins
// wrote): it keeps the two newest and the deployed one, deletes every other
// revision with all its Secrets, oldest first, and the plan's bytes freed are
// those the records held. A dry run (the plan alone) changes nothing.
func TestPruneEveryStore(t *testing.T) {
	for _, tc := range []struct {
		name, store string
		driver      func(ns string) driver.Driver
	}{
		{"chunked", kube.DriverChunked, func(ns string) driver.Driver { return chunkviewDriver(ns, pruneOwner, 16<<10) }},
		{"chunked by helm-operator-plugins", kube.DriverChunked, func(ns string) driver.Driver { return originalDriver(ns, pruneOwner, 16<<10) }},
		{"secret", kube.DriverSecret, func(ns string) driver.Driver { return helm3Driver(kube.DriverSecret, ns) }},
		{"configmap", kube.DriverConfigMap, func(ns string) driver.Driver { return helm3Driver(kube.DriverConfigMap, ns) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			ns := cluster.Namespace(t)
			seed(t, tc.driver(ns), pruneHistory("app", ns)...)
			var want int64
			for _, rev := range []int{1, 2, 4} {
				want += recordData(t, tc.store, ns, "app", rev)
			}
			c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--driver", tc.store, "--chunk-size", "16384"}, nil)
			before := snapshot(t, ns)
			p, err := planOf(ctx, c, ns, "app")
			if err != nil {
				t.Fatal(err)
			}
			pr, err := ops.NewRunner(c).PlanPrune(ctx, p, 2)
			if err != nil {
				t.Fatal(err)
			}
			mustSame(t, before, snapshot(t, ns))
			var removed []int
			for _, r := range pr.Removed {
				removed = append(removed, r.Revision)
			}
			if fmt.Sprint(removed) != "[1 2 4]" || fmt.Sprint(pr.Kept) != "[3 5 6]" {
				t.Fatalf("plan removes %v and keeps %v, want [1 2 4] and [3 5 6]", removed, pr.Kept)
			}
			if !pr.FreedExact || pr.FreedBytes != want {
				t.Errorf("plan frees %d bytes (exact %v), the records hold %d", pr.FreedBytes, pr.FreedExact, want)
			}
			mustContain(t, pr.Describe(), "oldest first (1, 2, 4)", "keeps 3, 5, 6")
			if err := ops.NewRunner(c).Apply(ctx, pr); err != nil {
				t.Fatal(err)
			}
			rows, err := c.History(ctx, ns, "app")
			if err != nil {
				t.Fatal(err)
			}
			var left []int
			for _, r := range rows {
				left = append(left, r.Revision)
			}
			if fmt.Sprint(left) != "[3 5 6]" {
				t.Errorf("history after prune %v, want [3 5 6]", left)
			}
			if tc.store == kube.DriverChunked {
				for _, rev := range []int{1, 2, 4} {
					if got := secretsOfKey(t, ns, pruneOwner, storage.RecordKey("app", rev)); len(got) != 0 {
						t.Errorf("revision %d left Secrets %v", rev, got)
					}
				}
			}
			after := snapshot(t, ns)
			for k, v := range after {
				if before[k] != v {
					t.Errorf("prune changed %s", k)
				}
			}
		})
	}
}

// TestPruneBesideOtherWriter: helm-operator-plugins upgrades the release while
// prune deletes its old revisions (the other writer's records land between two
// of prune's deletes). Prune's deletes are each held to the record as planned, so
// the other writer's new revision and the one it superseded stay, and the history
// has no gap. Then the other writer rewrites a revision prune is about to delete:
// that delete is refused as a conflict, prune stops there (exit 7 in the CLI), and
// the rewritten revision stays. The races happened: each hook ran between two of
// prune's requests, and the second was seen as a conflict.
func TestPruneBesideOtherWriter(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	hop := originalDriver(ns, pruneOwner, 16<<10)
	seed(t, hop, history("busy", ns, 5, 20_000)...)
	firstDelete := &trigger{match: func(r *http.Request) bool {
		return r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/secrets/"+storage.RecordKey("busy", 1))
	}}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--driver", "chunked", "--chunk-size", "16384"}, func(o *kube.Options) { o.WrapConfig = firstDelete.wrap })
	p, err := planOf(ctx, c, ns, "busy")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := ops.NewRunner(c).PlanPrune(ctx, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	raced := false
	firstDelete.arm(func() {
		// The operator's upgrade: revision 6 deployed, 5 superseded.
		r5, err := hop.Get(storage.RecordKey("busy", 5))
		if err != nil {
			t.Error(err)
			return
		}
		r5.Info.Status = release.StatusSuperseded
		if err := hop.Update(storage.RecordKey("busy", 5), r5); err != nil {
			t.Error(err)
		}
		if err := hop.Create(storage.RecordKey("busy", 6), makeRelease("busy", ns, 6, release.StatusDeployed, 20_000)); err != nil {
			t.Error(err)
		}
		raced = true
	})
	err = ops.NewRunner(c).Apply(ctx, pr)
	if !raced {
		t.Fatal("the other writer never wrote: the race did not happen")
	}
	// Deleting records of revisions 1..4 does not touch 5 or 6: prune may
	// finish; what must hold is what it left.
	rows, herr := c.History(ctx, ns, "busy")
	if herr != nil {
		t.Fatal(herr)
	}
	var left []int
	for _, r := range rows {
		left = append(left, r.Revision)
	}
	if !slices.Contains(left, 6) || !slices.Contains(left, 5) {
		t.Fatalf("the other writer's revisions are gone: %v (prune: %v)", left, err)
	}
	for i := 1; i < len(left); i++ {
		if left[i] != left[i-1]+1 {
			t.Fatalf("prune left a gap: %v (prune: %v)", left, err)
		}
	}
	t.Logf("prune beside the other writer: %v, history left %v", err, left)

	// The other writer rewrites revision 3 after prune deleted revision 1.
	ns2 := cluster.Namespace(t)
	hop2 := originalDriver(ns2, pruneOwner, 16<<10)
	seed(t, hop2, history("busy", ns2, 5, 20_000)...)
	first := &trigger{match: func(r *http.Request) bool {
		return r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/secrets/"+storage.RecordKey("busy", 1))
	}}
	c2 := connect(t, adminKubeconfig(t, ns2), []string{"-n", ns2, "--driver", "chunked", "--chunk-size", "16384"}, func(o *kube.Options) { o.WrapConfig = first.wrap })
	p2, err := planOf(ctx, c2, ns2, "busy")
	if err != nil {
		t.Fatal(err)
	}
	pr2, err := ops.NewRunner(c2).PlanPrune(ctx, p2, 1)
	if err != nil {
		t.Fatal(err)
	}
	rewrote := false
	first.arm(func() {
		r3, err := hop2.Get(storage.RecordKey("busy", 3))
		if err != nil {
			t.Error(err)
			return
		}
		r3.Info.Description = "rewritten by the operator"
		if err := hop2.Update(storage.RecordKey("busy", 3), r3); err != nil {
			t.Error(err)
		}
		rewrote = true
	})
	err = ops.NewRunner(c2).Apply(ctx, pr2)
	if !rewrote {
		t.Fatal("the other writer never rewrote revision 3: the race did not happen")
	}
	mustContain(t, mustErrIs(t, err, kube.ErrChanged), "revision 1 deleted")
	r3, gerr := hop2.Get(storage.RecordKey("busy", 3))
	if gerr != nil || r3.Info.Description != "rewritten by the operator" {
		t.Fatalf("the other writer's revision 3 after the prune: %v, %v", r3, gerr)
	}
	rows, err = c2.History(ctx, ns2, "busy")
	if err != nil {
		t.Fatal(err)
	}
	left = left[:0]
	for _, r := range rows {
		left = append(left, r.Revision)
	}
	if fmt.Sprint(left) != "[3 4 5]" && fmt.Sprint(left) != "[2 3 4 5]" {
		t.Errorf("history after the refused delete: %v, want the newest contiguous from 2 or 3", left)
	}
}
