package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/storage/driver"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// These tests install CRDs, which every test of the package would see: none of
// them runs in parallel, so that no parallel test runs while a CRD is served.

func dynamicClient(t *testing.T) dynamic.Interface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// createHelmRelease creates a Flux HelmRelease name in ns that manages release
// name, with the status helm-controller would give it.
func createHelmRelease(t *testing.T, dyn dynamic.Interface, ns, name string, suspend bool) {
	t.Helper()
	ctx := t.Context()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": kube.KindHelmRelease,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"interval": "5m", "suspend": suspend, "chart": map[string]any{"spec": map[string]any{"chart": "app", "version": "1.x"}}},
	}}
	created, err := dyn.Resource(testcluster.HelmReleases).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create HelmRelease: %v", err)
	}
	created.Object["status"] = map[string]any{
		"conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "reason": "UpgradeSucceeded", "message": "Helm upgrade succeeded for release " + ns + "/" + name + ".v2 with chart app@1.0.2", "lastTransitionTime": "2026-11-01T00:00:00Z"},
		},
		"lastAttemptedRevision": "1.0.2",
		"history":               []any{map[string]any{"name": name, "namespace": ns, "version": 2, "chartName": "app", "chartVersion": "1.0.2", "status": "deployed"}},
	}
	if _, err := dyn.Resource(testcluster.HelmReleases).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update HelmRelease status: %v", err)
	}
}

// suspendHelmRelease sets spec.suspend of HelmRelease ns/name, as `flux suspend`
// does.
func suspendHelmRelease(t *testing.T, dyn dynamic.Interface, ns, name string, suspend bool) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"suspend":%v}}`, suspend)
	if _, err := dyn.Resource(testcluster.HelmReleases).Namespace(ns).Patch(t.Context(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestFluxHelmRelease: a release a HelmRelease manages shows it in ls and
// history (controlledBy "HelmRelease/NS/NAME", its Ready condition, suspended or
// not, the chart version it last attempted). While the HelmRelease is not
// suspended, rollback, uninstall, delete-revision and fix-stuck are refused,
// naming it and `flux suspend`, and nothing changes; --ignore-controller goes
// ahead; once it is suspended, the operations run.
func TestFluxHelmRelease(t *testing.T) {
	cluster.InstallFlux(t)
	dyn := dynamicClient(t)
	e := newEnv(t)
	e.install(byChunkview, "app", 3)
	createHelmRelease(t, dyn, e.ns, "app", false)
	want := "HelmRelease/" + e.ns + "/app"

	r := e.run("ls", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var ls cli.Releases
	if err := json.Unmarshal([]byte(r.stdout), &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls.Releases) != 1 || ls.Releases[0].ControlledBy != want || ls.Releases[0].Controller == nil ||
		ls.Releases[0].Controller.Ready != "True" || ls.Releases[0].Controller.Suspended || ls.Releases[0].Controller.LastAttempted != "1.0.2" {
		t.Fatalf("ls: %s", r.stdout)
	}
	r = e.run("history", "app", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var h cli.History
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil {
		t.Fatal(err)
	}
	if h.ControlledBy != want || h.Controller == nil || h.Controller.Suspended {
		t.Fatalf("history: controlledBy %q, controller %+v", h.ControlledBy, h.Controller)
	}

	before := e.secrets("app")
	for _, args := range [][]string{
		{"rollback", "app", "1", "--yes"},
		{"uninstall", "app", "--yes"},
		{"delete-revision", "app", "1", "--yes"},
	} {
		r := e.run(args...)
		mustCode(t, r, cli.ExitRefused)
		if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "flux suspend helmrelease app -n "+e.ns) || !strings.Contains(r.stderr, "--ignore-controller") {
			t.Errorf("%v refused without naming the controller and the way to pause it: %s", args, r)
		}
	}
	if after := e.secrets("app"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused operation changed the records: %v -> %v", before, after)
	}

	r = e.run("rollback", "app", "2", "--yes", "--ignore-controller")
	mustCode(t, r, cli.ExitOK)

	suspendHelmRelease(t, dyn, e.ns, "app", true)
	r = e.run("rollback", "app", "3", "--yes")
	mustCode(t, r, cli.ExitOK)
	r = e.run("ls", "-o", "json")
	if err := json.Unmarshal([]byte(r.stdout), &ls); err != nil {
		t.Fatal(err)
	}
	if c := ls.Releases[0].Controller; c == nil || !c.Suspended || ls.Releases[0].Revision != 5 {
		t.Errorf("after suspend and rollback: %s", r.stdout)
	}
}

// TestOLMv1ListsFromExtensions: `ls -A` over an OLMv1 layout (operator-controller's
// records in one storage namespace, each owned by its ClusterExtension) takes each
// release's namespace, package and bundle from one cluster-scoped list of
// ClusterExtensions and the records' labels: it reads no record data at all, and
// no chunk Secret, for at most a fifth of the bytes stored; the release namespace
// is known, not "?". An operation on such a release is refused while its
// ClusterExtension is there, unless --ignore-controller.
func TestOLMv1ListsFromExtensions(t *testing.T) {
	cluster.InstallOLMv1(t, false)
	dyn := dynamicClient(t)
	e := newEnv(t)
	e.noNamespace = true
	system := e.ns
	var stored int64
	exts := map[string]string{}
	for i, ext := range []string{"alpha", "bravo", "charlie"} {
		apps := cluster.Namespace(t)
		exts[ext] = apps
		// Releases of a realistic size (about 200 KB each, over several 64 KiB
		// chunks): the listing's fixed costs (discovery, the lists) are not
		// what is measured.
		d := hopDriver(system, "operator-controller", 64<<10)
		cfg := e.actionConfigIn(d, apps)
		for rev := 1; rev <= 2+i; rev++ {
			vals := valuesFor(ext, rev)
			vals["blob"] = noise(fmt.Sprintf("%s-%d", ext, rev), 200_000)
			if rev == 1 {
				in := action.NewInstall(cfg)
				in.ReleaseName, in.Namespace = ext, apps
				if _, err := in.Run(testChart(), vals); err != nil {
					t.Fatal(err)
				}
				continue
			}
			up := action.NewUpgrade(cfg)
			up.Namespace = apps
			if _, err := up.Run(ext, testChart(), vals); err != nil {
				t.Fatal(err)
			}
		}
		uid := olmOwn(t, system, ext, 2+i)
		createExtensionFor(t, dyn, ext, apps, uid)
		stored += storedBytes(t, system, ext)
	}
	flags := []string{"--owner", "operator-controller", "--storage-namespace", system}
	stats := &kube.Stats{}
	r := e.runApp(&cli.App{Stats: stats}, "", append([]string{"ls", "-A", "-o", "json"}, flags...)...)
	mustCode(t, r, cli.ExitOK)
	var ls cli.Releases
	if err := json.Unmarshal([]byte(r.stdout), &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls.Releases) != 3 {
		t.Fatalf("ls: %s", r)
	}
	for _, it := range ls.Releases {
		if it.Namespace != exts[it.Name] || it.Chart != it.Name || it.ChartVersion != "1.2.0" || it.ControlledBy != "ClusterExtension/"+it.Name ||
			it.Controller == nil || it.Controller.Package != it.Name || it.Controller.InstallNamespace != exts[it.Name] {
			t.Errorf("%s: namespace %q chart %q %q controlledBy %q controller %+v", it.Name, it.Namespace, it.Chart, it.ChartVersion, it.ControlledBy, it.Controller)
		}
	}
	for _, call := range stats.Calls() {
		if strings.Contains(call, "/secrets") && !strings.HasSuffix(call, " (metadata)") {
			t.Errorf("ls read record data: %s", call)
		}
	}
	if got := stats.BytesReceived(); got*5 > stored {
		t.Errorf("ls received %d bytes of %d stored (%.0f%%), want at most 20%%", got, stored, 100*float64(got)/float64(stored))
	}
	t.Logf("ls -A over %d bytes stored: %d requests, %d bytes received (%.1f%%)", stored, stats.Total(), stats.BytesReceived(), 100*float64(stats.BytesReceived())/float64(stored))

	r = e.run(append([]string{"rollback", "alpha", "1", "--yes"}, flags...)...)
	mustCode(t, r, cli.ExitRefused)
	if !strings.Contains(r.stderr, "ClusterExtension/alpha") || !strings.Contains(r.stderr, "--ignore-controller") {
		t.Errorf("rollback of an OLMv1 release: %s", r)
	}
	r = e.run(append([]string{"rollback", "alpha", "1", "--yes", "--ignore-controller"}, flags...)...)
	mustCode(t, r, cli.ExitOK)
}

// hopDriver is helm-operator-plugins' driver, as operator-controller runs it, in
// chunks of chunkSize.
func hopDriver(ns, owner string, chunkSize int) driver.Driver {
	return hopstorage.NewChunkedSecrets(cluster.Client.CoreV1().Secrets(ns), owner, hopstorage.ChunkedSecretsConfig{ChunkSize: chunkSize})
}

// olmOwn gives the index Secrets of release name's n revisions in ns
// operator-controller's metadata: a controller ownerReference to
// ClusterExtension name and its labels. It returns the owner's UID.
func olmOwn(t testing.TB, ns, name string, n int) types.UID {
	t.Helper()
	uid := types.UID("0000-" + name)
	for rev := 1; rev <= n; rev++ {
		yes := true
		patch := map[string]any{"metadata": map[string]any{
			"labels": map[string]string{
				"olm.operatorframework.io/package-name":   name,
				"olm.operatorframework.io/bundle-name":    name + ".v1.2.0",
				"olm.operatorframework.io/bundle-version": "1.2.0",
			},
			"ownerReferences": []metav1.OwnerReference{{
				APIVersion: "olm.operatorframework.io/v1", Kind: kube.KindClusterExtension, Name: name,
				UID: uid, Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		}}
		body, _ := json.Marshal(patch)
		if _, err := cluster.Client.CoreV1().Secrets(ns).Patch(t.Context(), storage.RecordKey(name, rev), types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
			t.Fatalf("patch index %d of %s: %v", rev, name, err)
		}
	}
	return uid
}

// createExtensionFor creates ClusterExtension name installing package name into
// ns, with bundle name.v1.2.0 installed.
func createExtensionFor(t testing.TB, dyn dynamic.Interface, name, ns string, _ types.UID) {
	t.Helper()
	ctx := t.Context()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "olm.operatorframework.io/v1", "kind": kube.KindClusterExtension,
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"namespace": ns, "serviceAccount": map[string]any{"name": "installer"},
			"source": map[string]any{"sourceType": "Catalog", "catalog": map[string]any{"packageName": name}}},
	}}
	created, err := dyn.Resource(testcluster.ClusterExtensions).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create ClusterExtension: %v", err)
	}
	created.Object["status"] = map[string]any{
		"conditions": []any{map[string]any{"type": "Installed", "status": "True", "reason": "Succeeded", "message": "installed", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
		"install":    map[string]any{"bundle": map[string]any{"name": name + ".v1.2.0", "version": "1.2.0"}},
	}
	if _, err := dyn.Resource(testcluster.ClusterExtensions).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update ClusterExtension status: %v", err)
	}
}

// storedBytes is the data every record of release name in ns holds: what a
// listing that read them all would receive at least.
func storedBytes(t testing.TB, ns, name string) int64 {
	t.Helper()
	list, err := cluster.Client.CoreV1().Secrets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, s := range list.Items {
		if s.Labels[storage.LabelName] != name && !strings.HasPrefix(s.Name, storage.RecordKey(name, 0)[:len("sh.helm.release.v1.")+len(name)+1]) {
			continue
		}
		for _, v := range s.Data {
			n += int64(len(v))
		}
	}
	return n
}

// TestControllersAbsentOrForbidden: without Flux's or OLMv1's API, ls says
// nothing of them and asks nothing of them past discovery; with Flux's API served
// but HelmReleases not readable by the user, ls notes it once as not readable,
// and history's JSON says whether a HelmRelease manages the release is not known.
func TestControllersAbsentOrForbidden(t *testing.T) {
	e := newEnv(t)
	e.install(byChunkview, "solo", 2)
	stats := &kube.Stats{}
	r := e.runApp(&cli.App{Stats: stats}, "", "ls")
	mustCode(t, r, cli.ExitOK)
	for _, call := range stats.Calls() {
		if strings.Contains(call, "/apis/helm.toolkit.fluxcd.io") || strings.Contains(call, "/apis/olm.operatorframework.io") {
			t.Errorf("ls asked an API that is not served: %s", call)
		}
	}
	if strings.Contains(r.stderr, "HelmRelease") || strings.Contains(r.stderr, "ClusterExtension") {
		t.Errorf("ls spoke of controllers that are not there: %s", r)
	}

	cluster.InstallFlux(t)
	user := userEnv(t, e, "no-flux", e.ns)
	bind(t, e.ns, "no-flux", "secrets-reader", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, Verbs: []string{"get", "list"}})
	r = retryUntil(t, user, cli.ExitOK, "ls")
	if !strings.Contains(r.stderr, "HelmReleases are not readable: forbidden (kubectl auth can-i list helmreleases.helm.toolkit.fluxcd.io)") {
		t.Errorf("ls as a user who may not read HelmReleases: %s", r)
	}
	r = user.run("history", "solo", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var h cli.History
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil {
		t.Fatal(err)
	}
	if h.Controller == nil || h.Controller.Kind != kube.KindHelmRelease || !strings.Contains(h.Controller.Unreadable, "forbidden") {
		t.Errorf("history's controller for a user who may not read HelmReleases: %+v", h.Controller)
	}
}
