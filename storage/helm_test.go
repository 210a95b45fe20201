package storage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/kube"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"

	"github.com/chunkview/chunkview/storage"
)

// helmChunkSize makes the chart's release span several chunks while each of its
// ConfigMaps stays well under the 1 MiB object limit.
const helmChunkSize = 128 << 10

// helmConfig returns a Helm action configuration on the test cluster whose releases
// are stored by d, and whose resources go to namespace ns.
func helmConfig(t *testing.T, ns string, d *storage.ChunkedSecrets) *action.Configuration {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, cluster.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	getter := genericclioptions.NewConfigFlags(false)
	getter.KubeConfig = &kubeconfig
	getter.Namespace = &ns
	getter.CacheDir = &cache
	kc := kube.New(getter)
	kc.Namespace = ns
	kc.Log = t.Logf
	return &action.Configuration{
		RESTClientGetter: getter,
		Releases:         helmstorage.Init(d),
		KubeClient:       kc,
		Log:              t.Logf,
	}
}

// demoChart returns a chart of two ConfigMaps: a small one that shows the revision's
// values and a large one of poorly compressible data.
func demoChart() *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "demo", Version: "0.1.0", AppVersion: "1.0.0"},
		Values:   map[string]interface{}{"revision": "0", "blob": noise(99, 200<<10)},
		Templates: []*chart.File{
			{Name: "templates/small.yaml", Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-small
data:
  revision: {{ .Values.revision | quote }}
`)},
			{Name: "templates/big.yaml", Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-big
data:
  blob: {{ .Values.blob | quote }}
`)},
		},
	}
}

// TestHelmActions runs Helm's own install, upgrade, rollback, history and uninstall
// on the real server with the chunked driver, and checks both the records and the
// resources they manage.
func TestHelmActions(t *testing.T) {
	ns, secrets := newNamespace(t)
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: helmChunkSize})
	cfg := helmConfig(t, ns, d)
	ch := demoChart()
	cms := cluster.Client.CoreV1().ConfigMaps(ns)
	revisionOnServer := func() string {
		t.Helper()
		cm, err := cms.Get(context.Background(), "app-small", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("ConfigMap app-small: %v", err)
		}
		if _, err := cms.Get(context.Background(), "app-big", metav1.GetOptions{}); err != nil {
			t.Fatalf("ConfigMap app-big: %v", err)
		}
		return cm.Data["revision"]
	}
	mustRecords := func(want ...int) {
		t.Helper()
		var keys []string
		for _, v := range want {
			keys = append(keys, key("app", v))
		}
		if got := storedVersions(t, secrets); !slices.Equal(got, want) {
			t.Fatalf("stored revisions %v, want %v", got, want)
		}
		mustHoldOnly(t, secrets, keys...)
		mustAllReadable(t, secrets, testOwner)
		for _, k := range keys {
			mustAllOwned(t, secrets, k)
		}
		if n := len(mustFindLeftovers(t, secrets)); n != 0 {
			t.Fatalf("%d chunk Secrets left over", n)
		}
	}

	inst := action.NewInstall(cfg)
	inst.ReleaseName = "app"
	inst.Namespace = ns
	rel, err := inst.Run(ch, map[string]interface{}{"revision": "1"})
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	if rel.Version != 1 || rel.Info.Status != release.StatusDeployed {
		t.Fatalf("install gave v%d %s", rel.Version, rel.Info.Status)
	}
	if got := revisionOnServer(); got != "1" {
		t.Fatalf("ConfigMap shows revision %q after install", got)
	}
	if n := len(recordNames(t, secrets, key("app", 1))); n <= 2 {
		t.Fatalf("the release takes %d chunks of %d bytes; the test wants more than 2", n, helmChunkSize)
	} else {
		t.Logf("release v1 takes %d chunks of %d bytes", n, helmChunkSize)
	}
	mustRecords(1)
	v1Chunks := recordNames(t, secrets, key("app", 1))

	for rev := 2; rev <= 4; rev++ {
		up := action.NewUpgrade(cfg)
		up.Namespace = ns
		up.MaxHistory = 3
		rel, err := up.Run("app", ch, map[string]interface{}{"revision": fmt.Sprint(rev)})
		if err != nil {
			t.Fatalf("upgrade to v%d: %v", rev, err)
		}
		if rel.Version != rev || rel.Info.Status != release.StatusDeployed {
			t.Fatalf("upgrade gave v%d %s, want v%d deployed", rel.Version, rel.Info.Status, rev)
		}
		if got := revisionOnServer(); got != fmt.Sprint(rev) {
			t.Fatalf("ConfigMap shows revision %q after upgrade to v%d", got, rev)
		}
	}
	// MaxHistory 3: revision 1 is pruned, with all its chunks.
	mustRecords(2, 3, 4)
	for _, n := range v1Chunks {
		if _, err := secrets.Get(context.Background(), n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("Secret %s of pruned revision 1 still there (%v)", n, err)
		}
	}

	rb := action.NewRollback(cfg)
	rb.Version = 3
	rb.MaxHistory = 3
	if err := rb.Run("app"); err != nil {
		t.Fatalf("rollback to v3: %v", err)
	}
	if got := revisionOnServer(); got != "3" {
		t.Fatalf("ConfigMap shows revision %q after rollback to v3", got)
	}
	mustRecords(3, 4, 5)

	hist := action.NewHistory(cfg)
	hist.Max = 256
	rels, err := hist.Run("app")
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	sort.Slice(rels, func(i, j int) bool { return rels[i].Version < rels[j].Version })
	var got []string
	for _, r := range rels {
		got = append(got, fmt.Sprintf("v%d %s revision=%v", r.Version, r.Info.Status, r.Config["revision"]))
	}
	want := []string{"v3 superseded revision=3", "v4 superseded revision=4", "v5 deployed revision=3"}
	if !slices.Equal(got, want) {
		t.Fatalf("history %v, want %v", got, want)
	}

	un := action.NewUninstall(cfg)
	un.KeepHistory = true
	if _, err := un.Run("app"); err != nil {
		t.Fatalf("uninstall --keep-history: %v", err)
	}
	mustConfigMapsGone(t, ns)
	mustRecords(3, 4, 5)
	last, err := d.Get(key("app", 5))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := secrets.Get(context.Background(), key("app", 5), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if last.Info.Status != release.StatusUninstalled || idx.Labels[storage.LabelStatus] != "uninstalled" {
		t.Fatalf("after uninstall --keep-history v5 is %s, its index label status=%s; want uninstalled", last.Info.Status, idx.Labels[storage.LabelStatus])
	}
	if rels, err := action.NewHistory(cfg).Run("app"); err != nil || len(rels) != 3 {
		t.Fatalf("history after uninstall --keep-history: %d revisions, %v", len(rels), err)
	}

	if _, err := action.NewUninstall(cfg).Run("app"); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	mustRecords()
	if left := secretNames(t, secrets); len(left) != 0 {
		t.Fatalf("Secrets left after uninstall: %v", left)
	}
}

// storedVersions returns the revisions whose index Secrets exist, in order.
func storedVersions(t *testing.T, secrets corev1client.SecretInterface) []int {
	t.Helper()
	list, err := secrets.List(context.Background(), metav1.ListOptions{LabelSelector: storage.IndexSelector(testOwner).String()})
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, s := range list.Items {
		_, rev, ok := storage.ParseKey(s.Name)
		if !ok {
			t.Fatalf("index Secret %s has no record key", s.Name)
		}
		out = append(out, rev)
	}
	sort.Ints(out)
	return out
}

func mustConfigMapsGone(t *testing.T, ns string) {
	t.Helper()
	list, err := cluster.Client.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range list.Items {
		if cm.Name != "kube-root-ca.crt" {
			t.Fatalf("ConfigMap %s still exists after uninstall", cm.Name)
		}
	}
}

func mustFindLeftovers(t *testing.T, secrets corev1client.SecretInterface) []storage.Leftover {
	t.Helper()
	los, err := storage.FindLeftovers(context.Background(), secrets, testOwner, 1)
	if err != nil {
		t.Fatal(err)
	}
	return los
}
