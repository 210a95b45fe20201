package cli_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/storage"
)

// TestStatusUnknownObjects: an object status cannot read, because the user may
// not get its kind or because the cluster does not serve its kind, is Unknown,
// with the reason (the kubectl auth can-i line, the CRD to install), never
// Current; and status then exits 1, as for any object not Current. The ConfigMap
// beside them, which the user may read, is Current.
func TestStatusUnknownObjects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := "---\n# Source: odd/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: odd-cm\n" +
		"---\n# Source: odd/templates/sa.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: odd-sa\n" +
		"---\n# Source: odd/templates/widget.yaml\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: odd-widget\n"
	rls := &release.Release{Name: "odd", Namespace: e.ns, Version: 1, Manifest: manifest,
		Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "odd", Version: "1.0.0", APIVersion: "v2"}},
		Info:  &release.Info{Status: release.StatusDeployed, Description: "Install complete"}}
	if err := driverFor(byChunkview, e.ns).Create(storage.RecordKey("odd", 1), rls); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := cluster.Client.CoreV1().ConfigMaps(e.ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "odd-cm"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cluster.Client.CoreV1().ServiceAccounts(e.ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "odd-sa"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	user := "cli-status-" + e.ns
	bind(t, e.ns, user, "status-reader", secretReader,
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "events"}, Verbs: []string{"get", "list"}})
	u := userEnv(t, e, user, e.ns)

	r := retryUntil(t, u, cli.ExitNotCurrent, "status", "odd", "-o", "json")
	mustCode(t, r, cli.ExitNotCurrent)
	var st live.ReleaseStatus
	decode(t, r, &st)
	got := map[string]live.ResourceStatus{}
	for _, res := range st.Resources {
		got[res.Kind] = res
	}
	if s := got["ConfigMap"]; s.Status != live.StatusCurrent {
		t.Errorf("the ConfigMap the user may read: %+v, want Current", s)
	}
	if s := got["ServiceAccount"]; s.Status != live.StatusUnknown || !strings.Contains(s.Message, "kubectl auth can-i get serviceaccounts") {
		t.Errorf("the ServiceAccount the user may not read: %+v, want Unknown with the can-i line", s)
	}
	if s := got["Widget"]; s.Status != live.StatusUnknown || !strings.Contains(s.Message, "does not serve example.com/v1 Widget") {
		t.Errorf("the Widget whose kind is not served: %+v, want Unknown saying so", s)
	}
	r = u.run("status", "odd")
	mustCode(t, r, cli.ExitNotCurrent)
	if !strings.Contains(r.stdout, "Objects: 1 of 3 Current (2 Unknown)") {
		t.Errorf("the table: want 1 of 3 Current (2 Unknown):\n%s", r.stdout)
	}
}
