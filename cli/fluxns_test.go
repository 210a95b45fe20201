package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/owner"
)

// createFluxLayoutRelease creates, in Flux's own namespace, a HelmRelease hr that
// deploys release name to ns and stores it there (spec.targetNamespace and
// spec.storageNamespace), as Flux's common layout has it.
func createFluxLayoutRelease(t *testing.T, hr, ns, name string) {
	t.Helper()
	ctx := t.Context()
	_, err := cluster.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: owner.FluxNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	dyn := dynamicClient(t)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": kube.KindHelmRelease,
		"metadata": map[string]any{"name": hr, "namespace": owner.FluxNamespace},
		"spec": map[string]any{"interval": "5m", "releaseName": name, "targetNamespace": ns, "storageNamespace": ns,
			"chart": map[string]any{"spec": map[string]any{"chart": "app", "version": "1.x"}}},
	}}
	created, err := dyn.Resource(testcluster.HelmReleases).Namespace(owner.FluxNamespace).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create HelmRelease: %v", err)
	}
	created.Object["status"] = map[string]any{
		"conditions":       []any{map[string]any{"type": "Ready", "status": "True", "reason": "UpgradeSucceeded", "message": "Helm upgrade succeeded", "lastTransitionTime": "2026-11-01T00:00:00Z"}},
		"storageNamespace": ns,
		"history":          []any{map[string]any{"name": name, "namespace": ns, "version": 2, "chartName": "app", "chartVersion": "1.0.2", "status": "deployed"}},
	}
	if _, err := dyn.Resource(testcluster.HelmReleases).Namespace(owner.FluxNamespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update HelmRelease status: %v", err)
	}
}

// TestFluxHelmReleaseInAnotherNamespace: a HelmRelease kept in flux-system that
// deploys and stores its release in the application's namespace is found by
// history -n APP (controlledBy), ls -n APP, and the operations, which it refuses
// as for a HelmRelease beside its release. A user who may list HelmReleases in
// flux-system but not across namespaces finds it too; one who may list them in
// the application's namespace alone is told that HelmReleases elsewhere could not
// be read, and where they were looked for, not that none manages the release.
func TestFluxHelmReleaseInAnotherNamespace(t *testing.T) {
	cluster.InstallFlux(t)
	e := newEnv(t)
	e.install(byChunkview, "app", 2)
	hr := "app-" + e.ns
	createFluxLayoutRelease(t, hr, e.ns, "app")
	want := "HelmRelease/" + owner.FluxNamespace + "/" + hr

	controlledBy := func(who *env) (string, *kube.Controller) {
		t.Helper()
		r := who.run("history", "app", "-o", "json")
		mustCode(t, r, cli.ExitOK)
		var h cli.History
		if err := json.Unmarshal([]byte(r.stdout), &h); err != nil {
			t.Fatal(err)
		}
		return h.ControlledBy, h.Controller
	}
	if got, _ := controlledBy(e); got != want {
		t.Errorf("history -n %s: controlledBy %q, want %q", e.ns, got, want)
	}
	r := e.run("ls", "-o", "json")
	mustCode(t, r, cli.ExitOK)
	var ls cli.Releases
	decode(t, r, &ls)
	if len(ls.Releases) != 1 || ls.Releases[0].ControlledBy != want {
		t.Errorf("ls -n %s: %s", e.ns, r.stdout)
	}
	before := e.secrets("app")
	r = e.run("rollback", "app", "1", "--yes")
	mustCode(t, r, cli.ExitRefused)
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "flux suspend helmrelease "+hr+" -n "+owner.FluxNamespace) {
		t.Errorf("rollback refused without naming the HelmRelease in flux-system: %s", r)
	}
	if after := e.secrets("app"); len(after) != len(before) {
		t.Fatalf("a refused rollback changed the records: %v -> %v", before, after)
	}

	// A user who may list HelmReleases in flux-system, not across namespaces.
	secrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, Verbs: []string{"get", "list"}}
	hrs := rbacv1.PolicyRule{APIGroups: []string{"helm.toolkit.fluxcd.io"}, Resources: []string{"helmreleases"}, Verbs: []string{"get", "list"}}
	flux := userEnv(t, e, "flux-viewer-"+e.ns, e.ns)
	bind(t, e.ns, "flux-viewer-"+e.ns, "app-reader", secrets)
	bind(t, owner.FluxNamespace, "flux-viewer-"+e.ns, "hr-reader-"+e.ns, hrs)
	retryUntil(t, flux, cli.ExitOK, "history", "app")
	if got, _ := controlledBy(flux); got != want {
		t.Errorf("a user who may list HelmReleases in flux-system only: controlledBy %q, want %q", got, want)
	}

	// A user who may list HelmReleases in the application's namespace alone.
	local := userEnv(t, e, "local-viewer-"+e.ns, e.ns)
	bind(t, e.ns, "local-viewer-"+e.ns, "local-reader", secrets, hrs)
	retryUntil(t, local, cli.ExitOK, "history", "app")
	got, ctl := controlledBy(local)
	if got != "" || ctl == nil || !strings.Contains(ctl.Unreadable, "not readable in every namespace") || !strings.Contains(ctl.Unreadable, "looked in "+e.ns+" only") {
		t.Errorf("a user who may list HelmReleases in %s only: controlledBy %q, controller %+v; want it said that HelmReleases elsewhere were not read", e.ns, got, ctl)
	}
	r = local.run("ls")
	mustCode(t, r, cli.ExitOK)
	if !strings.Contains(r.stderr, "HelmReleases are not readable in every namespace: forbidden") {
		t.Errorf("ls as a user who may list HelmReleases in %s only: %s", e.ns, r)
	}
}
