package ops_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/faultproxy"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// Real users with real RBAC on envtest: what chunkview can do for each, and what it
// says when it cannot.

const rbacOwner = "rbac-owner"

// rbacSeed stores a release of three revisions, stuck in a pending upgrade, and a
// leftover chunk in ns: something for every operation to change.
func rbacSeed(t *testing.T, ns string) {
	t.Helper()
	d := storage.NewDriver(secrets(ns), rbacOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	rels := history("app", ns, 3, 20_000)
	rels = append(rels, makeRelease("app", ns, 4, release.StatusPendingUpgrade, 100))
	rels[3].Info.LastDeployed.Time = time.Now().Add(-time.Hour)
	seed(t, d, rels...)
	createChunk(t, ns, rbacOwner, storage.RecordKey("app", 1), []byte("an old leftover"))
}

// TestRBACReadOnlyUser: a user who may get and list Secrets in one namespace lists
// and inspects; every change is refused up front with the permission it lacks, and
// Can tells a UI which actions to disable and why.
func TestRBACReadOnlyUser(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	rbacSeed(t, ns)
	user := "viewer-" + ns
	kc := rbacUser(t, user, ns)
	grant(t, ns, user, "secret-reader", readSecrets)
	c := connect(t, kc, []string{"--owner", rbacOwner}, nil)

	var rows []kube.ReleaseRow
	waitAllowed(t, "list as a reader", func() (err error) { rows, err = c.Releases(ctx); return err })
	if len(rows) != 1 || rows[0].Latest.Revision != 4 {
		t.Fatalf("releases %+v", rows)
	}
	if _, err := c.History(ctx, ns, "app"); err != nil {
		t.Errorf("history: %v", err)
	}
	if l, err := kube.NewInspector(c).Layout(ctx, ns, "app", 3); err != nil || l.Broken() {
		t.Errorf("inspect: %+v, %v", l, err)
	}
	if _, err := kube.NewChecker(c).Verify(ctx, "", true); err != nil {
		t.Errorf("verify: %v", err)
	}

	p, err := ops.Can(ctx, c, ns)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Allowed["get"] || !p.Allowed["list"] || p.Allowed["create"] || p.Allowed["delete"] {
		t.Errorf("permissions %+v", p.Allowed)
	}
	if !p.ReadOnly() {
		t.Errorf("a reader is not read-only: %v", p.Disabled())
	}
	wantMissing := map[string]string{
		kube.OpRollback:       "create, update, patch, delete secrets",
		kube.OpUninstall:      "create, update, delete, deletecollection secrets",
		kube.OpDeleteRevision: "delete, deletecollection secrets",
		kube.OpGC:             "delete secrets",
		kube.OpFixStuck:       "create, update, patch, delete, deletecollection secrets",
		kube.OpPrune:          "delete, deletecollection secrets",
		kube.OpFixAPIs:        "create, update, patch, delete secrets",
	}
	disabled := p.Disabled()
	for _, op := range kube.Operations {
		reason := disabled[op]
		mustContain(t, reason, op+" needs permission to "+wantMissing[op]+" in namespace "+ns, "kubectl auth can-i", "-n "+ns)
		err := ops.CheckAllowed(ctx, c, ns, op)
		mustErrIs(t, err, kube.ErrForbidden)
		t.Logf("%s disabled: %s", op, reason)
	}

	// Run anyway, the server refuses, and nothing changes.
	before := snapshot(t, ns)
	_, err = applyByName(ctx, c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
	mustContain(t, mustErrIs(t, err, kube.ErrForbidden), "forbidden")
	_, err = applyByName(ctx, c, ns, "app", deleteRevisionPlan(2, false))
	mustErrIs(t, err, kube.ErrForbidden)
	reps, err := kube.NewChecker(c).FindLeftovers(ctx, time.Nanosecond)
	if err != nil || len(reps) != 1 || len(reps[0].Leftovers) != 1 {
		t.Fatalf("leftovers as a reader: %+v, %v", reps, err)
	}
	if _, err := kube.NewChecker(c).RemoveLeftovers(ctx, reps); !errors.Is(err, kube.ErrForbidden) {
		t.Errorf("gc as a reader: %v", err)
	}
	if after := snapshot(t, ns); len(after) != len(before) {
		t.Errorf("a reader changed the namespace: %d objects, was %d", len(after), len(before))
	}

	// A writer's actions are all enabled.
	grant(t, ns, user, "secret-writer", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}})
	waitAllowed(t, "permissions after the grant", func() error {
		p, err := ops.Can(ctx, c, ns)
		if err != nil {
			return err
		}
		if d := p.Disabled(); len(d) > 0 {
			return errors.New(strings.Join(keys(d), ", ") + " still disabled")
		}
		return nil
	})
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestRBACNoAccess: a user with no access to Secrets gets a "forbidden" that says
// which verb on which resource in which namespace is needed.
func TestRBACNoAccess(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	rbacSeed(t, ns)
	user := "nobody-" + ns
	c := connect(t, rbacUser(t, user, ns), []string{"--owner", rbacOwner}, nil)
	_, err := c.Releases(ctx)
	msg := mustErrIs(t, err, kube.ErrForbidden)
	mustContain(t, msg, "may not list secrets in namespace "+ns, `Ask for a Role granting "list" on "secrets"`, "kubectl auth can-i list secrets -n "+ns)
	_, err = c.History(ctx, ns, "app")
	mustErrIs(t, err, kube.ErrForbidden)
	p, err := ops.Can(ctx, c, ns)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"get", "list", "create", "delete"} {
		if p.Allowed[v] {
			t.Errorf("%s allowed", v)
		}
	}
	t.Logf("no access: %v", msg)
}

// TestRBACAllNamespacesScoped: a user who may read Secrets in two namespaces asks
// for all of them. chunkview lists the two it may read and says what it left out.
func TestRBACAllNamespacesScoped(t *testing.T) {
	ctx := t.Context()
	home, other, closed := cluster.Namespace(t), cluster.Namespace(t), cluster.Namespace(t)
	for _, ns := range []string{home, other, closed} {
		rbacSeed(t, ns)
	}
	user := "scoped-" + home
	kc := rbacUser(t, user, home)
	grant(t, home, user, "secret-reader", readSecrets)
	grant(t, other, user, "secret-reader", readSecrets)

	c := connect(t, kc, []string{"--owner", rbacOwner, "-A", "--namespaces", other + "," + closed}, nil)
	var (
		rows []kube.ReleaseRow
		err  error
	)
	waitAllowed(t, "list the readable namespaces", func() error {
		rows, err = c.Releases(ctx)
		if len(rows) == 2 {
			return nil
		}
		return errors.New("rows not there yet")
	})
	var pe *kube.PartialError
	if !errors.As(err, &pe) || !errors.Is(err, kube.ErrPartial) || !errors.Is(err, kube.ErrForbidden) {
		t.Fatalf("want a PartialError, got %v", err)
	}
	got := map[string]bool{}
	for _, r := range rows {
		got[r.Latest.StorageNamespace] = true
	}
	if !got[home] || !got[other] || got[closed] {
		t.Errorf("rows from %v", got)
	}
	if len(pe.Read) != 2 || pe.Skipped[closed] == "" {
		t.Errorf("partial: read %v, skipped %v", pe.Read, pe.Skipped)
	}
	mustContain(t, err.Error(), "may not list secrets across all namespaces", home, other, "also refused: "+closed, "--namespaces")
	t.Logf("-A as a namespace-scoped user: %v", err)

	// The chunk check of rows of both namespaces, refused across all namespaces,
	// looks in each readable one.
	var revs []*kube.RevisionRow
	for _, ns := range []string{home, other} {
		seed(t, storage.NewDriver(secrets(ns), rbacOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10}), history("big", ns, 3, 60_000)...)
		h, err := c.History(ctx, ns, "big")
		if err != nil {
			t.Fatal(err)
		}
		for i := range h {
			if h[i].Summary.Chunks > 1 {
				revs = append(revs, &h[i])
			}
		}
	}
	if len(revs) != 6 {
		t.Fatalf("%d revisions of several chunks, want 3 in each namespace", len(revs))
	}
	if err := kube.NewChecker(c).CheckHealth(ctx, revs); err != nil {
		t.Errorf("CheckHealth -A as a namespace-scoped user: %v", err)
	}
	for _, r := range revs {
		if !r.Checked || r.Broken {
			t.Errorf("%s/%s v%d: checked %v broken %v (%s)", r.StorageNamespace, r.Name, r.Revision, r.Checked, r.Broken, r.Unchecked)
		}
	}

	// Verify and gc -A look in the readable namespaces too, skip the refused one,
	// and say so. Each namespace holds one leftover chunk (rbacSeed).
	reps, err := kube.NewChecker(c).Verify(ctx, "", false)
	if !errors.As(err, &pe) || len(reps) != 2 || reps[0].Namespace != home || reps[1].Namespace != other || pe.Skipped[closed] == "" {
		t.Errorf("verify -A: %v, %v", reps, err)
	}
	leftovers, err := kube.NewChecker(c).FindLeftovers(ctx, time.Nanosecond)
	found := 0
	for _, r := range leftovers {
		found += len(r.Leftovers)
	}
	if !errors.Is(err, kube.ErrPartial) || found != 2 {
		t.Errorf("gc -A found %d leftovers in %d namespaces: %v", found, len(leftovers), err)
	}
	if _, _, err := gc(ctx, c, true); !errors.Is(err, kube.ErrPartial) {
		t.Errorf("gc -A --dry-run: %v", err)
	}

	// Nothing readable at all: the plain forbidden error, as before.
	none := connect(t, rbacUser(t, "lost-"+home, closed), []string{"--owner", rbacOwner, "-A"}, nil)
	_, err = none.Releases(ctx)
	if errors.Is(err, kube.ErrPartial) || !errors.Is(err, kube.ErrForbidden) {
		t.Errorf("no readable namespace: %v", err)
	}
}

// TestRBACReadOnlyAdmin: with --read-only, an admin's every operation is refused and
// not one mutating request reaches the server, counted at a proxy in front of it.
func TestRBACReadOnlyAdmin(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	rbacSeed(t, ns)
	p, err := faultproxy.New(cluster.Config, faultproxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	kc, err := p.WriteKubeconfig(t.TempDir(), ns)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, kc, []string{"--owner", rbacOwner, "--read-only"}, nil)
	p.Reset()
	if _, err := c.Releases(ctx); err != nil {
		t.Fatal(err)
	}
	for name, op := range map[string]func() error{
		"rollback": func() error {
			_, err := applyByName(ctx, c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
			return err
		},
		"uninstall":       func() error { _, err := applyByName(ctx, c, ns, "app", uninstallPlan(false)); return err },
		"delete-revision": func() error { _, err := applyByName(ctx, c, ns, "app", deleteRevisionPlan(2, true)); return err },
		"remove leftovers": func() error {
			reps, err := kube.NewChecker(c).FindLeftovers(ctx, time.Nanosecond)
			if err != nil {
				return err
			}
			_, err = kube.NewChecker(c).RemoveLeftovers(ctx, reps)
			return err
		},
		"fix-stuck":     func() error { _, err := applyByName(ctx, c, ns, "app", fixStuckPlan(ops.FixMarkFailed)); return err },
		"check allowed": func() error { return ops.CheckAllowed(ctx, c, ns, kube.OpRollback) },
	} {
		mustErrIs(t, op(), kube.ErrReadOnly)
		_ = name
	}
	perm, err := ops.Can(ctx, c, ns)
	if err != nil || !perm.ReadOnly() {
		t.Errorf("Can under --read-only: %+v, %v", perm, err)
	}
	if m := p.Mutating(); len(m) != 0 {
		t.Errorf("--read-only let %d mutating requests through: %v", len(m), m)
	}
	t.Logf("--read-only: %d requests reached the server, none mutating", p.Count())
}

// TestRBACReleaseResources: a user who may write the release records but not the
// release's own resources is refused a rollback before anything is written, with a
// "forbidden" that names what Helm would need on which resources (configmaps, not
// secrets). Granted them, the rollback goes through.
func TestRBACReleaseResources(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	d := storage.NewDriver(secrets(ns), rbacOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, d, history("app", ns, 2, 20_000)...)
	user := "secrets-only-" + ns
	kc := rbacUser(t, user, ns)
	grant(t, ns, user, "secret-writer", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}})
	c := connect(t, kc, []string{"--owner", rbacOwner}, nil)
	waitAllowed(t, "permissions after the grant", func() error { return ops.CheckAllowed(ctx, c, ns, kube.OpRollback) })

	before := snapshot(t, ns)
	_, err := applyByName(ctx, c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
	msg := mustErrIs(t, err, kube.ErrForbidden)
	mustContain(t, msg, "rollback needs permission to get, patch configmaps in namespace "+ns, "nothing was changed",
		"kubectl auth can-i get configmaps -n "+ns)
	if strings.Contains(msg, "secrets") {
		t.Errorf("the error blames secrets: %s", msg)
	}
	t.Logf("rollback: %v", err)
	if after := snapshot(t, ns); len(after) != len(before) {
		t.Errorf("the refused rollback changed the namespace: %d objects, was %d", len(after), len(before))
	}
	rows, err := c.History(ctx, ns, "app")
	if err != nil || len(rows) != 2 || rows[1].Status != "deployed" {
		t.Fatalf("history after the refused rollback: %+v, %v", rows, err)
	}

	// With the rights on ConfigMaps, the same rollback works.
	grant(t, ns, user, "configmap-writer", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "create", "patch", "update", "delete"}})
	waitAllowed(t, "rollback after the grant", func() error {
		_, err := applyByName(ctx, c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
		return err
	})
	rows, err = c.History(ctx, ns, "app")
	if err != nil || len(rows) != 3 || rows[2].Status != "deployed" {
		t.Fatalf("history after the rollback: %+v, %v", rows, err)
	}

	// A release uninstalled with its history kept has no resources left: purging
	// its records needs no right on ConfigMaps.
	seed(t, d, history("gone", ns, 2, 1_000)...)
	admin := connect(t, adminKubeconfig(t, ns), []string{"--owner", rbacOwner}, nil)
	if _, err := applyByName(ctx, admin, ns, "gone", uninstallPlan(true)); err != nil {
		t.Fatal(err)
	}
	purger := "purger-" + ns
	pkc := rbacUser(t, purger, ns)
	grant(t, ns, purger, "purger-secrets", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}})
	limited := connect(t, pkc, []string{"--owner", rbacOwner}, nil)
	waitAllowed(t, "purge as a user without rights on ConfigMaps", func() error {
		_, err := applyByName(ctx, limited, ns, "gone", uninstallPlan(false))
		return err
	})
	if _, err := c.History(ctx, ns, "gone"); !errors.Is(err, kube.ErrNotFound) {
		t.Errorf("history of the purged release: %v", err)
	}
}

// TestRBACStoreSkipped: a user who may read Secrets but not ConfigMaps sees the
// chunked and Helm Secrets releases, and a note that the ConfigMaps store was
// skipped and why; with --driver secret there is nothing to skip.
func TestRBACStoreSkipped(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	seed(t, chunkviewDriver(ns, "helm", 4096), history("chunky", ns, 1, 0)...)
	seed(t, driver.NewSecrets(secrets(ns)), history("plain", ns, 2, 0)...)
	user := "secrets-reader-" + ns
	kc := rbacUser(t, user, ns)
	grant(t, ns, user, "secret-reader", readSecrets)
	c := connect(t, kc, []string{"-n", ns}, nil)
	var rows []kube.ReleaseRow
	var err error
	waitAllowed(t, "list secrets", func() error {
		rows, err = c.Releases(ctx)
		if errors.Is(err, kube.ErrPartial) {
			return nil
		}
		return err
	})
	var skip *kube.StoreSkipError
	if !errors.As(err, &skip) || skip.Skipped[kube.DriverConfigMap] == nil || len(skip.Skipped) != 1 {
		t.Fatalf("error %v, want the configmap store skipped", err)
	}
	mustContain(t, err.Error(), "configmap store skipped", "list configmaps", "kubectl auth can-i list configmaps -n "+ns)
	if len(rows) != 2 || rows[0].Latest.Name != "chunky" || rows[1].Latest.Name != "plain" || rows[1].Latest.Driver != kube.DriverSecret {
		t.Fatalf("rows %+v, want chunky (chunked) and plain (secret)", rows)
	}
	only := connect(t, kc, []string{"-n", ns, "--driver", "secret"}, nil)
	if rows, err := only.Releases(ctx); err != nil || len(rows) != 1 {
		t.Fatalf("--driver secret: %+v, %v", rows, err)
	}
	// Asking what the user may do with a Helm Secrets release asks about Secrets;
	// with a ConfigMaps release, about ConfigMaps.
	p, err := ops.Can(ctx, c.WithDrivers(kube.DriverConfigMap), ns)
	if err != nil || p.Resource != "configmaps" || p.Allowed["list"] {
		t.Fatalf("configmap permissions %+v, %v", p, err)
	}
	p, err = ops.Can(ctx, c.WithDrivers(kube.DriverSecret), ns)
	if err != nil || p.Resource != "secrets" || !p.Allowed["list"] || p.Allowed["update"] {
		t.Fatalf("secret permissions %+v, %v", p, err)
	}
	mustContain(t, p.Allows(kube.OpRollback).Error(), "rollback needs permission to create, update secrets")

	// The live view follows the stores it may read, and says which it cannot.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var note string
	for ev := range c.Watch(wctx, kube.WatchOptions{}) {
		if ev.Type == kube.WatchMode && !ev.Polling {
			note = ev.Note
		}
		if ev.Type == kube.WatchSynced {
			break
		}
	}
	mustContain(t, note, "the configmap store is not followed", `cannot list resource "configmaps"`)
}
