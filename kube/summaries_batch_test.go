package kube_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// summaryRows lists the releases c sees and returns their latest rows, by name,
// none of them Known (records the original driver wrote).
func summaryRows(t *testing.T, c *kube.Client, want int) ([]*kube.RevisionRow, map[string]*kube.RevisionRow) {
	t.Helper()
	rows, err := c.Releases(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != want {
		t.Fatalf("Releases: %d rows, want %d", len(rows), want)
	}
	ptrs := make([]*kube.RevisionRow, len(rows))
	byName := map[string]*kube.RevisionRow{}
	for i := range rows {
		ptrs[i] = &rows[i].Latest
		byName[rows[i].Latest.Name] = ptrs[i]
		if rows[i].Latest.Known {
			t.Fatalf("%s is Known from metadata alone", rows[i].Latest.Name)
		}
	}
	return ptrs, byName
}

// mustMatchTruth checks that r shows the chart, versions, deploy time and chunk
// count the record holds (want, from truthOf).
func mustMatchTruth(t *testing.T, r *kube.RevisionRow, want kube.RevisionRow) {
	t.Helper()
	s, w := r.Summary, want.Summary
	if !r.Known || r.Broken || s.Chart != w.Chart || s.ChartVersion != w.ChartVersion || s.AppVersion != w.AppVersion || !s.LastDeployed.Equal(w.LastDeployed) || s.Chunks != w.Chunks {
		t.Errorf("%s: Known=%v Broken=%v %+v, want %+v (%s)", r.Name, r.Known, r.Broken, s, w, r.Problem)
	}
}

// truthOf reads each row's record from the cluster without chunkview: its
// Secrets as they are (the index's slice and extraChunks list, the chunks' slices,
// by the format's own field names), the gzip stream they make inflated by
// compress/gzip, and the release decoded by helm-operator-plugins' driver. The
// rows' limits are kept, for Fill.
func truthOf(t *testing.T, rows []*kube.RevisionRow) map[string]kube.RevisionRow {
	t.Helper()
	out := map[string]kube.RevisionRow{}
	for _, r := range rows {
		sec := secrets(r.StorageNamespace)
		idx, err := sec.Get(t.Context(), r.Key, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get index %s: %v", r.Key, err)
		}
		var names []string
		if err := json.Unmarshal(idx.Data["extraChunks"], &names); err != nil {
			t.Fatalf("index %s: extraChunks: %v", r.Key, err)
		}
		gz := bytes.Clone(idx.Data["chunk"])
		for _, n := range names {
			ch, err := sec.Get(t.Context(), n, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get chunk %s: %v", n, err)
			}
			gz = append(gz, ch.Data["chunk"]...)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("record %s: %v", r.Key, err)
		}
		js, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("record %s: %v", r.Key, err)
		}
		rls, err := hopstorage.NewChunkedSecrets(sec, "any", hopstorage.ChunkedSecretsConfig{}).Get(r.Key)
		if err != nil {
			t.Fatalf("helm-operator-plugins' Get of %s: %v", r.Key, err)
		}
		out[r.Name] = kube.RevisionRow{Name: r.Name, Known: true, LimitBytes: r.LimitBytes, Summary: storage.Summary{
			Chart: rls.Chart.Metadata.Name, ChartVersion: rls.Chart.Metadata.Version, AppVersion: rls.Chart.Metadata.AppVersion,
			Namespace: rls.Namespace, Description: rls.Info.Description, LastDeployed: rls.Info.LastDeployed.Time,
			StoredBytes: int64(len(gz)), DecodedBytes: int64(len(js)), Chunks: 1 + len(names),
		}}
	}
	return out
}

// TestFillSummariesBatchesByStorageNamespace: with -A, the index Secrets of rows
// in two storage namespaces are read with one list per ten rows of a namespace,
// each list in its own namespace, each key read once, and nothing else read; a
// row left alone in its batch is read with a GET, as many requests as a list.
func TestFillSummariesBatchesByStorageNamespace(t *testing.T) {
	ctx := t.Context()
	const owner = "batch-ns-owner"
	ns1, ns2 := cluster.Namespace(t), cluster.Namespace(t)
	counts := map[string]int{ns1: 11, ns2: 3}
	for ns, n := range counts {
		d := originalDriver(ns, owner, 1024)
		for i := range n {
			seed(t, d, history(fmt.Sprintf("%s-r%02d", ns, i), ns, 1+i%2, 4_000)...)
		}
	}
	wire := &wireLog{}
	c := connect(t, adminKubeconfig(t, ""), []string{"-A", "--owner", owner}, func(o *kube.Options) { o.WrapConfig = wire.install })
	rows, _ := summaryRows(t, c, counts[ns1]+counts[ns2])
	truth := truthOf(t, rows)

	wire.Reset()
	if err := c.FillSummaries(ctx, rows); err != nil {
		t.Fatalf("FillSummaries: %v", err)
	}
	reqs := wire.Requests()
	lists := map[string]int{}
	read := map[string]int{}
	for _, rq := range reqs {
		if ns, keys, ok := indexList(rq); ok {
			if len(keys) > 10 {
				t.Errorf("a list names %d keys, over 10", len(keys))
			}
			lists[ns]++
			for _, k := range keys {
				read[ns+"/"+k]++
			}
			continue
		}
		if ns, name, ok := secretGet(rq); ok && ns == ns1 {
			read[ns+"/"+name]++
			continue
		}
		t.Errorf("FillSummaries sent %s, want lists of index Secrets and one GET", rq)
	}
	if len(reqs) != 3 || lists[ns1] != 1 || lists[ns2] != 1 {
		t.Errorf("FillSummaries sent %d requests, lists by namespace %v; want 3: in %s (11 rows) a list of 10 and a GET, in %s (3 rows) a list", len(reqs), lists, ns1, ns2)
	}
	for _, r := range rows {
		if n := read[r.StorageNamespace+"/"+r.Key]; n != 1 {
			t.Errorf("%s/%s read %d times, want once", r.StorageNamespace, r.Key, n)
		}
		mustMatchTruth(t, r, truth[r.Name])
		if !r.Peeked || r.Checked {
			t.Errorf("%s: Peeked=%v Checked=%v, want a peek", r.Name, r.Peeked, r.Checked)
		}
	}
}

// TestFillSummariesBatchLeavesOut: a row whose index the batch's list does not
// return is read with a GET, as before batching, and reported as that read finds
// it: an index deleted since the release list, or turned pending, is gone; a
// Secret with an index's labels but another type is broken; an index whose key
// label names no key asked is read and shown. An index whose key label names
// another row's key is kept under its own name, not mistaken for that row's.
func TestFillSummariesBatchLeavesOut(t *testing.T) {
	ctx := t.Context()
	const owner = "batch-out-owner"
	ns := cluster.Namespace(t)
	d := originalDriver(ns, owner, 1024)
	for i, n := range []string{"ok", "liar", "stray", "gone", "pending", "wrongtype"} {
		seed(t, d, history(n, ns, 1+i%3, 4_000)...)
	}
	sec := secrets(ns)
	latest := map[string]string{}
	mutate := func(name string, fn func(*corev1.Secret)) {
		t.Helper()
		s, err := sec.Get(ctx, latest[name], metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fn(s)
		if _, err := sec.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range []string{"ok", "liar", "stray", "gone", "pending", "wrongtype"} {
		latest[n] = storage.RecordKey(n, 1+i%3)
	}
	mutate("liar", func(s *corev1.Secret) { s.Labels[storage.LabelKey] = latest["ok"] })
	mutate("stray", func(s *corev1.Secret) { s.Labels[storage.LabelKey] = "elsewhere" })
	// The type of a Secret cannot change: wrongtype's index is made again as an
	// Opaque Secret with the same labels and data.
	idx, err := sec.Get(ctx, latest["wrongtype"], metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sec.Delete(ctx, idx.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sec.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: idx.Name, Labels: idx.Labels}, Type: corev1.SecretTypeOpaque, Data: idx.Data}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	wire := &wireLog{}
	args := []string{"-n", ns, "--owner", owner}
	c := connect(t, adminKubeconfig(t, ""), args, func(o *kube.Options) { o.WrapConfig = wire.install })
	rows, byName := summaryRows(t, c, 6)
	truth := truthOf(t, []*kube.RevisionRow{byName["ok"], byName["liar"], byName["stray"]})
	// Between the release list and the summaries: one index deleted, one turned
	// pending (as a create in progress leaves it).
	if err := sec.Delete(ctx, latest["gone"], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	mutate("pending", func(s *corev1.Secret) { s.Labels[storage.LabelType] = storage.TypePending })

	wire.Reset()
	err = c.FillSummaries(ctx, rows)
	for _, n := range []string{"gone", "pending"} {
		want := fmt.Sprintf("revision record %s/%s is gone; refresh", ns, latest[n])
		if !errors.Is(err, kube.ErrNotFound) || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FillSummaries: %v; want ErrNotFound, %q", err, want)
		}
		if r := byName[n]; r.Known || r.Broken {
			t.Errorf("%s: Known=%v Broken=%v, want left as it was", n, r.Known, r.Broken)
		}
	}
	if r := byName["wrongtype"]; !r.Broken || r.Known || !strings.Contains(r.Problem, "is not a chunked release index") {
		t.Errorf("wrongtype: Broken=%v Known=%v %q, want broken: not an index", r.Broken, r.Known, r.Problem)
	}
	for _, n := range []string{"ok", "liar", "stray"} {
		mustMatchTruth(t, byName[n], truth[n])
	}
	var gets []string
	lists := 0
	for _, rq := range wire.Requests() {
		if _, keys, ok := indexList(rq); ok {
			lists++
			if len(keys) != 6 {
				t.Errorf("the list names %d keys, want the 6 rows'", len(keys))
			}
			continue
		}
		if _, name, ok := secretGet(rq); ok {
			gets = append(gets, name)
			continue
		}
		t.Errorf("FillSummaries sent %s", rq)
	}
	want := map[string]bool{latest["stray"]: true, latest["gone"]: true, latest["pending"]: true, latest["wrongtype"]: true}
	if lists != 1 || len(gets) != len(want) {
		t.Errorf("FillSummaries sent %d lists and GETs of %v; want 1 list, then a GET of each of %v", lists, gets, want)
	}
	for _, g := range gets {
		if !want[g] {
			t.Errorf("FillSummaries read %s on its own, which the list returned", g)
		}
	}
}

// TestFillSummariesListForbidden: a user who may get Secrets but not list them
// has each row's index read with a GET once the batch's list is refused.
func TestFillSummariesListForbidden(t *testing.T) {
	ctx := t.Context()
	const owner = "batch-rbac-owner"
	ns := cluster.Namespace(t)
	d := originalDriver(ns, owner, 1024)
	names := []string{"a", "b", "c"}
	for _, n := range names {
		seed(t, d, history(n, ns, 1, 4_000)...)
	}
	args := []string{"-n", ns, "--owner", owner}
	admin := connect(t, adminKubeconfig(t, ""), args, nil)
	rows, _ := summaryRows(t, admin, len(names))
	truth := truthOf(t, rows)

	user := "getter-" + ns
	kc := rbacUser(t, user, ns)
	grant(t, ns, user, "secret-getter", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}})
	wire := &wireLog{}
	c := connect(t, kc, args, func(o *kube.Options) { o.WrapConfig = wire.install })
	waitAllowed(t, "get as a getter", func() error {
		_, err := storage.NewDriver(c.Clientset().CoreV1().Secrets(ns), c.Config().Owner, kube.ChunkedConfig(c.Config().Driver, c.Metadata(), ns)).ReadIndex(ctx, rows[0].Key)
		return err
	})

	wire.Reset()
	if err := c.FillSummaries(ctx, rows); err != nil {
		t.Fatalf("FillSummaries: %v", err)
	}
	reqs := wire.Requests()
	lists, gets := 0, map[string]int{}
	for _, rq := range reqs {
		if _, _, ok := indexList(rq); ok {
			lists++
		} else if _, name, ok := secretGet(rq); ok {
			gets[name]++
		} else {
			t.Errorf("FillSummaries sent %s", rq)
		}
	}
	if len(reqs) != 1+len(rows) || lists != 1 {
		t.Errorf("FillSummaries sent %d requests (%d lists), want %d: the refused list, then a GET of each index", len(reqs), lists, 1+len(rows))
	}
	for _, r := range rows {
		if gets[r.Key] != 1 {
			t.Errorf("index %s read %d times, want once", r.Key, gets[r.Key])
		}
		mustMatchTruth(t, r, truth[r.Name])
	}
}
