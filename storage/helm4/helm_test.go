package helm4_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v4/pkg/action"
	chartcommon "helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/kube"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	helmstorage "helm.sh/helm/v4/pkg/storage"

	"github.com/chunkview/chunkview/storage/chunked"
	"github.com/chunkview/chunkview/storage/helm4"
)

// actionsChunkSize makes the chart's release span several chunks while each of
// its ConfigMaps stays well under the 1 MiB object limit.
const actionsChunkSize = 128 << 10

// helmConfig returns a Helm 4 action configuration on the test cluster whose
// releases are stored by d and whose resources go to namespace ns: Init, then
// the chunked driver in place of the Secrets driver Init set.
func helmConfig(t *testing.T, ns string, d *helm4.ChunkedSecrets) *action.Configuration {
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
	cfg := action.NewConfiguration()
	if err := cfg.Init(getter, ns, "secret"); err != nil {
		t.Fatal(err)
	}
	cfg.Releases = helmstorage.Init(d)
	return cfg
}

// demoChart is a chart of two ConfigMaps: one that shows the revision's values and
// a large one of poorly compressible data.
func demoChart() *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "demo", Version: "0.1.0", AppVersion: "1.0.0"},
		Values:   map[string]any{"revision": "0", "blob": noise(99, 200<<10)},
		Templates: []*chartcommon.File{
			{Name: "templates/small.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-small\ndata:\n  revision: {{ .Values.revision | quote }}\n")},
			{Name: "templates/big.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-big\ndata:\n  blob: {{ .Values.blob | quote }}\n")},
		},
	}
}

// TestHelmActions runs Helm 4's own install (server-side apply, its default),
// upgrade, rollback, history and uninstall on the real server with the Helm 4
// chunked driver, and checks the records, what Helm 4 wrote in them, and the
// resources they manage.
func TestHelmActions(t *testing.T) {
	ns, secrets := newNamespace(t)
	d := helm4.NewDriver(secrets, testOwner, chunked.Config{ChunkSize: actionsChunkSize})
	cfg := helmConfig(t, ns, d)
	ch := demoChart()
	cms := cluster.Client.CoreV1().ConfigMaps(ns)
	revisionOnServer := func() string {
		t.Helper()
		cm, err := cms.Get(context.Background(), "app-small", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("ConfigMap app-small: %v", err)
		}
		return cm.Data["revision"]
	}
	mustRecords := func(want ...int) {
		t.Helper()
		list, err := secrets.List(context.Background(), metav1.ListOptions{LabelSelector: chunked.IndexSelector(testOwner).String()})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, s := range list.Items {
			_, rev, _ := chunked.ParseKey(s.Name)
			got = append(got, rev)
		}
		sort.Ints(got)
		if !slices.Equal(got, want) {
			t.Fatalf("stored revisions %v, want %v", got, want)
		}
		mustSound(t, secrets, d)
	}
	stored := func(rev int) *rspb.Release {
		t.Helper()
		got, err := d.Fresh().Get(key("app", rev))
		if err != nil {
			t.Fatal(err)
		}
		return got.(*rspb.Release)
	}

	inst := action.NewInstall(cfg)
	inst.ReleaseName = "app"
	inst.Namespace = ns
	inst.WaitStrategy = kube.HookOnlyStrategy
	if _, err := inst.Run(ch, map[string]any{"revision": "1"}); err != nil {
		t.Fatalf("install: %v", err)
	}
	if got := revisionOnServer(); got != "1" {
		t.Fatalf("ConfigMap shows revision %q after install", got)
	}
	if _, chunks := storedPayload(t, secrets, key("app", 1)); chunks <= 2 {
		t.Fatalf("the release takes %d chunks of %d bytes; the test wants more than 2", chunks, actionsChunkSize)
	}
	if r := stored(1); r.ApplyMethod != string(rspb.ApplyMethodServerSideApply) || r.Info.Status != common.StatusDeployed {
		t.Fatalf("installed v1: apply method %q, status %s; want ssa, deployed", r.ApplyMethod, r.Info.Status)
	}
	mustRecords(1)

	for rev := 2; rev <= 4; rev++ {
		up := action.NewUpgrade(cfg)
		up.Namespace = ns
		up.MaxHistory = 3
		up.WaitStrategy = kube.HookOnlyStrategy
		if _, err := up.Run("app", ch, map[string]any{"revision": fmt.Sprint(rev)}); err != nil {
			t.Fatalf("upgrade to v%d: %v", rev, err)
		}
		if got := revisionOnServer(); got != fmt.Sprint(rev) {
			t.Fatalf("ConfigMap shows revision %q after upgrade to v%d", got, rev)
		}
	}
	mustRecords(2, 3, 4) // MaxHistory 3: revision 1 pruned, its chunks with it

	rb := action.NewRollback(cfg)
	rb.Version = 3
	rb.MaxHistory = 3
	rb.WaitStrategy = kube.HookOnlyStrategy
	if err := rb.Run("app"); err != nil {
		t.Fatalf("rollback to v3: %v", err)
	}
	if got := revisionOnServer(); got != "3" {
		t.Fatalf("ConfigMap shows revision %q after rollback to v3", got)
	}
	mustRecords(3, 4, 5)
	if r := stored(5); r.Info.RollbackRevision != 3 || r.ApplyMethod != string(rspb.ApplyMethodServerSideApply) || r.Info.Status != common.StatusDeployed {
		t.Fatalf("rollback's v5: rollback_revision %d, apply method %q, status %s; want 3, ssa, deployed", r.Info.RollbackRevision, r.ApplyMethod, r.Info.Status)
	}

	hist := action.NewHistory(cfg)
	hist.Max = 256
	rels, err := hist.Run("app")
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	var got []string
	for _, rel := range rels {
		r := rel.(*rspb.Release)
		got = append(got, fmt.Sprintf("v%d %s revision=%v", r.Version, r.Info.Status, r.Config["revision"]))
	}
	sort.Strings(got)
	if want := []string{"v3 superseded revision=3", "v4 superseded revision=4", "v5 deployed revision=3"}; !slices.Equal(got, want) {
		t.Fatalf("history %v, want %v", got, want)
	}

	un := action.NewUninstall(cfg)
	un.KeepHistory = true
	un.WaitStrategy = kube.HookOnlyStrategy
	if _, err := un.Run("app"); err != nil {
		t.Fatalf("uninstall --keep-history: %v", err)
	}
	mustRecords(3, 4, 5)
	if r := stored(5); r.Info.Status != common.StatusUninstalled {
		t.Fatalf("after uninstall --keep-history v5 is %s, want uninstalled", r.Info.Status)
	}
	un = action.NewUninstall(cfg)
	un.WaitStrategy = kube.HookOnlyStrategy
	if _, err := un.Run("app"); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	mustRecords()
	if left, err := secrets.List(context.Background(), metav1.ListOptions{}); err != nil || len(left.Items) != 0 {
		t.Fatalf("Secrets left after uninstall: %d (%v)", len(left.Items), err)
	}
	if _, err := cms.Get(context.Background(), "app-small", metav1.GetOptions{}); err == nil {
		t.Fatal("ConfigMap app-small still there after uninstall")
	}
}

// mustSound fails unless the records of secrets are whole and nothing is left
// over: every chunk an index names exists, every chunk Secret is named by an
// index, and every record decodes through d.
func mustSound(t *testing.T, secrets corev1client.SecretInterface, d *helm4.ChunkedSecrets) {
	t.Helper()
	ctx := context.Background()
	idxs, err := secrets.List(ctx, metav1.ListOptions{LabelSelector: chunked.IndexSelector(testOwner).String()})
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, s := range idxs.Items {
		names, err := chunked.ParseExtraChunks(s.Name, s.Data[chunked.DataExtraChunks])
		if err != nil {
			t.Fatalf("index %s: %v", s.Name, err)
		}
		for _, n := range names {
			named[n] = true
		}
		if _, err := d.Fresh().Get(s.Name); err != nil {
			t.Fatalf("record %s does not decode: %v", s.Name, err)
		}
	}
	chunks, err := secrets.List(ctx, metav1.ListOptions{LabelSelector: chunked.ChunkSelector(testOwner, "").String()})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, s := range chunks.Items {
		have[s.Name] = true
		if !named[s.Name] {
			t.Fatalf("chunk Secret %s is named by no index: left over", s.Name)
		}
	}
	for n := range named {
		if !have[n] {
			t.Fatalf("chunk Secret %s, named by an index, does not exist", n)
		}
	}
}
