package ops_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	common4 "helm.sh/helm/v4/pkg/release/common"
	release4 "helm.sh/helm/v4/pkg/release/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/storage/helm4"
)

// storeHelm4Chunked writes rls into namespace ns in the chunked format as a
// chunked driver built on Helm 4 would: Helm 4's release as JSON plus the format's
// "labels", gzip at best compression, cut into slices of chunkSize, an index Secret
// and a chunk Secret per further slice, owned by the index. chunkview's own writer
// encodes Helm 3's type, so the record is put together here from the format's
// exported parts.
func storeHelm4Chunked(t *testing.T, ns, owner string, rls *release4.Release, labels map[string]string, chunkSize int) {
	t.Helper()
	ctx := t.Context()
	js, err := json.Marshal(rls)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(js, &fields); err != nil {
		t.Fatal(err)
	}
	if fields["labels"], err = json.Marshal(labels); err != nil {
		t.Fatal(err)
	}
	if js, err = json.Marshal(fields); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	_, _ = zw.Write(js)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	k := storage.RecordKey(rls.Name, rls.Version)
	slices := storage.Split(gz.Bytes(), chunkSize)
	names := []string{}
	for _, s := range slices[1:] {
		names = append(names, storage.ChunkName(k, s))
	}
	extra, _ := json.Marshal(names)
	now := baseTime.Add(time.Duration(rls.Version) * time.Hour)
	idx, err := secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: k, Labels: map[string]string{
			storage.LabelName: rls.Name, storage.LabelOwner: owner, storage.LabelStatus: rls.Info.Status.String(),
			storage.LabelVersion: strconv.Itoa(rls.Version), storage.LabelKey: k, storage.LabelType: storage.TypeIndex,
			storage.LabelCreatedAt: fmt.Sprint(now.Unix()),
		}},
		Type:      storage.SecretTypeIndex,
		Immutable: ptr.To(false),
		Data:      map[string][]byte{storage.DataChunk: slices[0], storage.DataExtraChunks: extra},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "Secret", Name: idx.Name, UID: idx.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false)}
	for _, s := range slices[1:] {
		if _, err := secrets(ns).Create(ctx, storage.ChunkSecret(owner, k, s, now, &ref), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHelm4ChunkedRecord: a release an operator built on Helm 4 wrote in the
// chunked format reads with its apply method and the fields Helm 3 would drop;
// its operations run through Helm 4 and keep those fields, as for Helm 4's own
// Secrets records; deleting one revision record goes ahead. A Helm 3 release
// beside it reads with none of that and rolls back through Helm 3.
func TestHelm4ChunkedRecord(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	const owner, chunkSize = "operator-controller", 1024
	for rev, st := range map[int]common4.Status{1: common4.StatusSuperseded, 2: common4.StatusSuperseded, 3: common4.StatusDeployed} {
		rls := helm4Revision("h4c", ns, rev, st)
		// Over several chunks.
		rls.Chart.Files = []*chartcommon4.File{{Name: "big.txt", Data: []byte(noise("h4c", 3*chunkSize))}}
		storeHelm4Chunked(t, ns, owner, rls, map[string]string{"team": "four"}, chunkSize)
	}
	if n := len(chunkNames(t, ns, storage.RecordKey("h4c", 3))); n < 2 {
		t.Fatalf("revision 3 has %d extra chunks; want several", n)
	}
	seed(t, chunkviewDriver(ns, owner, chunkSize), history("h3c", ns, 2, 3000)...)

	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", owner}, nil)
	rows, err := c.History(ctx, ns, "h4c")
	if err != nil || len(rows) != 3 {
		t.Fatalf("history: %+v, %v", rows, err)
	}
	d, err := c.Details(ctx, rows[2])
	if err != nil {
		t.Fatal(err)
	}
	if d.Row.Broken || d.Row.ApplyMethod != "ssa" || d.Release.Chart.Metadata.Name != "demo" || d.Release.Labels["team"] != "four" {
		t.Fatalf("details: broken %v (%s), apply method %q, release %+v", d.Row.Broken, d.Row.Problem, d.Row.ApplyMethod, d.Release)
	}
	mustContain(t, fmt.Sprint(d.Row.UnknownFields), "apply_method", "chart.modtime", "chart.templates[].modtime")
	for _, f := range d.Row.UnknownFields {
		if f == "labels" {
			t.Fatalf("the format's labels field reported as unknown: %q", d.Row.UnknownFields)
		}
	}
	mustRunHelm4(t, c, ns, "h4c", func(key string) (*release4.Release, error) {
		ri, err := helm4.NewChunkedSecrets(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize}).Get(key)
		if err != nil {
			return nil, err
		}
		return ri.(*release4.Release), nil
	})

	// The Helm 3 release beside it: nothing unknown, and its rollback is planned.
	h3, err := c.History(ctx, ns, "h3c")
	if err != nil || len(h3) != 2 {
		t.Fatalf("history of h3c: %+v, %v", h3, err)
	}
	d3, err := c.Details(ctx, h3[1])
	if err != nil || d3.Row.ApplyMethod != "" || len(d3.Row.UnknownFields) != 0 {
		t.Fatalf("details of a Helm 3 record: %+v, %v", d3, err)
	}
	if p, err := planByName(ctx, c, ns, "h3c", rollbackPlan(1, kube.DiffOptions{})); err != nil || p.Major != 3 {
		t.Fatalf("rollback plan of a Helm 3 release: %+v, %v", p, err)
	}

	k1 := storage.RecordKey("h4c", 1)
	chunks1 := chunkNames(t, ns, k1)
	if _, err := applyByName(ctx, c, ns, "h4c", deleteRevisionPlan(1, false)); err != nil {
		t.Fatalf("delete-revision of a Helm 4 chunked record: %v", err)
	}
	if got := secretsOfKey(t, ns, owner, k1); len(got) != 0 {
		t.Fatalf("revision 1 left %q (its chunks were %q)", got, chunks1)
	}
	if rows, err := c.History(ctx, ns, "h4c"); err != nil || len(rows) != 3 || rows[0].Revision != 2 {
		t.Fatalf("history after the delete of revision 1: %+v, %v", rows, err)
	}
}
