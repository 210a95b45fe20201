package ops_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/storage/driver"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/ops"
)

// fixAPIsCase is one way a release's records are written: a store, the Helm
// major that writes them, and, for the chunked store, whose driver.
type fixAPIsCase struct {
	name  string
	store string
	major int
	// hop: helm-operator-plugins' chunked driver writes the records (OLMv1).
	hop bool
}

var fixAPIsCases = []fixAPIsCase{
	{"secret-helm3", kube.DriverSecret, 3, false},
	{"configmap-helm3", kube.DriverConfigMap, 3, false},
	{"chunked-helm3", kube.DriverChunked, 3, false},
	{"chunked-hop", kube.DriverChunked, 3, true},
	{"secret-helm4", kube.DriverSecret, 4, false},
	{"configmap-helm4", kube.DriverConfigMap, 4, false},
	{"chunked-helm4", kube.DriverChunked, 4, false},
}

// TestFixAPIs is the proof of issue 30 on a real API server that does not
// serve the versions: in every store and for both Helm majors (and records
// helm-operator-plugins wrote), a release whose stored manifest and hooks use
// APIs a 1.37 API server no longer serves (policy/v1beta1, autoscaling/v2beta2,
// batch/v1beta1, storage.k8s.io/v1beta1, a CRD's removed v1alpha1, and a
// PodSecurityPolicy) cannot be upgraded by Helm's own upgrade; chunkview
// finds each object; fix-apis refuses to drop the PodSecurityPolicy unless
// told to, then writes a new revision (through the Helm that wrote the
// release, every Helm 4 field kept); Helm's own upgrade then succeeds, and
// Helm 3's and Helm 4's history read the result. A rollback plan to the
// revision before the fix warns.
func TestFixAPIs(t *testing.T) {
	admin := connect(t, adminKubeconfig(t, "default"), nil, nil)
	kubetest.InstallWidgetCRD(t, cluster.Config, func(ctx context.Context) (*apis.Served, error) {
		admin.InvalidateDiscovery()
		return kube.NewChecker(admin).ServedAPIs(ctx)
	})
	for _, tc := range fixAPIsCases {
		t.Run(tc.name, func(t *testing.T) { testFixAPIs(t, tc) })
	}
}

// fixAPIsRelease is one case's release and the Helm that manages it.
type fixAPIsRelease struct {
	tc           fixAPIsCase
	ns, name, kc string
	d3           driver.Driver
	d4           driver4.Driver
}

func newFixAPIsRelease(t *testing.T, tc fixAPIsCase) *fixAPIsRelease {
	ns := "fixapis-" + tc.name
	ensureNamespace(t, cluster.Client, ns)
	r := &fixAPIsRelease{tc: tc, ns: ns, name: "legacy", kc: adminKubeconfig(t, ns)}
	switch {
	case tc.major == 4 && tc.store == kube.DriverChunked:
		r.d4 = chunked4Driver(ns)
	case tc.major == 4:
		r.d4 = helm4Driver(tc.store, ns)
	case tc.hop:
		r.d3 = originalDriver(ns, "helm", 4096)
	case tc.store == kube.DriverChunked:
		r.d3 = chunkviewDriver(ns, "helm", 4096)
	default:
		r.d3 = helmDriverFor(tc.store, ns)
	}
	return r
}

func (r *fixAPIsRelease) install(t *testing.T) {
	if r.d4 != nil {
		installLegacy4(t, config4(t, r.kc, r.ns, r.tc.store, r.d4), r.ns, r.name)
		staleRecord4(t, r.d4, r.name)
		return
	}
	kubetest.InstallLegacy3(t, helmConfig(t, r.kc, r.ns, r.d3), r.d3, r.ns, r.name, true)
}

// upgrade runs Helm's own upgrade, of the Helm that wrote the release.
func (r *fixAPIsRelease) upgrade(t *testing.T, version string) error {
	if r.d4 != nil {
		return upgradeLegacy4(config4(t, r.kc, r.ns, r.tc.store, r.d4), r.ns, r.name, version)
	}
	return kubetest.UpgradeLegacy3(helmConfig(t, r.kc, r.ns, r.d3), r.ns, r.name, version, true)
}

// histories are the release's history as each Helm reads it, over each
// driver that reads its store.
func (r *fixAPIsRelease) histories(t *testing.T) map[string][]historyLine {
	out := map[string][]historyLine{}
	switch r.tc.store {
	case kube.DriverChunked:
		out["helm 3, chunkview's driver"] = history3(t, r.kc, r.ns, chunkviewDriver(r.ns, "helm", 4096), r.name)
		out["helm 3, helm-operator-plugins' driver"] = history3(t, r.kc, r.ns, originalDriver(r.ns, "helm", 4096), r.name)
		out["helm 4, chunkview's driver"] = historyOf4(t, r.kc, r.ns, chunked4Driver(r.ns), r.name)
	default:
		out["helm 3"] = history3(t, r.kc, r.ns, helmDriverFor(r.tc.store, r.ns), r.name)
		out["helm 4"] = historyOf4(t, r.kc, r.ns, helm4Driver(r.tc.store, r.ns), r.name)
	}
	return out
}

// fields reads revision rev as its JSON's fields: by hand from Helm's own
// stores, through Helm 4's types from the chunked store (which know every
// field Helm 4 writes).
func (r *fixAPIsRelease) fields(t *testing.T, rev int) map[string]any {
	key := fmt.Sprintf("sh.helm.release.v1.%s.v%d", r.name, rev)
	if r.tc.store != kube.DriverChunked {
		return rawFields(t, r.tc.store, r.ns, key)
	}
	return fieldsOf4(t, record4(t, chunked4Driver(r.ns), r.name, rev))
}

func testFixAPIs(t *testing.T, tc fixAPIsCase) {
	ctx := t.Context()
	r := newFixAPIsRelease(t, tc)
	r.install(t)

	// Helm's own upgrade fails on the stored manifest.
	err := r.upgrade(t, "1.1.0")
	if err == nil || !strings.Contains(err.Error(), "current release manifest") {
		t.Fatalf("Helm %d's upgrade of a release with removed APIs: %v; want it to fail building the current manifest", tc.major, err)
	}

	// The API server really does not serve the stale versions.
	c := connect(t, r.kc, []string{"-n", r.ns}, nil)
	served, err := kube.NewChecker(c).ServedAPIs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, gvk := range [][2]string{{"policy/v1beta1", "PodDisruptionBudget"}, {"autoscaling/v2beta2", "HorizontalPodAutoscaler"}, {"batch/v1beta1", "CronJob"}, {"storage.k8s.io/v1beta1", "VolumeAttributesClass"}, {kubetest.WidgetGroup + "/v1alpha1", "Widget"}} {
		if s := served.Serves(gvk[0], gvk[1]); s != apis.NotServed {
			t.Fatalf("discovery says %v of %s %s; the test needs a server that does not serve it", s, gvk[0], gvk[1])
		}
	}

	// Detection names every unserved object, hooks included.
	rows, err := c.History(ctx, r.ns, r.name)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := kube.NewChecker(c).CheckAPIs(ctx, rows[len(rows)-1], served, apis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.With(apis.Unserved) {
		got = append(got, f.Ref()+" ("+f.APIVersion+")")
	}
	if want := kubetest.LegacyRefs(r.name, r.ns, true); !slices.Equal(got, want) {
		t.Fatalf("unserved objects found:\n%v\nwant\n%v", got, want)
	}

	// The guard: no successor, no --drop-unserved, no plan; nothing written.
	p, err := ops.NewPlan(r.ns, rows)
	if err != nil {
		t.Fatal(err)
	}
	rn := ops.NewRunner(c)
	if _, err := rn.PlanFixAPIs(ctx, p, served, false, kube.DiffOptions{}); !errors.Is(err, apis.ErrNoSuccessor) || !strings.Contains(err.Error(), "PodSecurityPolicy/legacy-restricted") {
		t.Fatalf("fix-apis without --drop-unserved: %v; want a refusal naming the PodSecurityPolicy", err)
	}

	var before map[string]any
	if tc.major == 4 {
		before = r.fields(t, 1)
	}
	fix, err := rn.PlanFixAPIs(ctx, p, served, true, kube.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFixPlan(t, r, fix)
	if err := rn.Apply(ctx, fix); err != nil {
		t.Fatalf("fix-apis: %v", err)
	}
	if tc.major == 4 {
		checkHelm4Fields(t, r, before)
	}

	// Helm's own upgrade succeeds now, and each Helm reads the history.
	if err := r.upgrade(t, "1.1.0"); err != nil {
		t.Fatalf("Helm %d's upgrade after fix-apis: %v", tc.major, err)
	}
	for reader, h := range r.histories(t) {
		if len(h) != 3 || h[0].Status != "superseded" || h[1].Status != "superseded" || h[2].Status != "deployed" || h[1].Description != fix.Description {
			t.Errorf("%s reads the history as %v; want 1 and 2 (the fix, %q) superseded, 3 deployed", reader, h, fix.Description)
		}
	}

	checkRollbackWarns(t, c, r)
}

// checkFixPlan holds the plan to what the stale record needs, and its diff
// to showing the changes with the release's secret masked.
func checkFixPlan(t *testing.T, r *fixAPIsRelease, fix *ops.FixAPIs) {
	t.Helper()
	if fix.Major != r.tc.major || fix.From != 1 || fix.Revision != 2 || !fix.Supersede {
		t.Fatalf("plan: Helm %d, from %d to %d, supersede %v; want Helm %d writing revision 2 from 1, superseding it", fix.Major, fix.From, fix.Revision, fix.Supersede, r.tc.major)
	}
	var moved []string
	for _, ch := range fix.Changes {
		moved = append(moved, ch.Ref()+" → "+ch.To.APIVersion)
	}
	want := []string{
		"PodDisruptionBudget/legacy → policy/v1",
		"HorizontalPodAutoscaler/legacy → autoscaling/v2",
		"VolumeAttributesClass/" + r.ns + "-legacy → storage.k8s.io/v1",
		"Widget/legacy → " + kubetest.WidgetGroup + "/v1",
		"CronJob/legacy-report → batch/v1",
	}
	if !slices.Equal(moved, want) || len(fix.Dropped) != 1 || fix.Dropped[0].Kind != "PodSecurityPolicy" {
		t.Fatalf("plan moves %v and drops %v; want %v and the PodSecurityPolicy", moved, fix.Dropped, want)
	}
	u := fix.Diff.Unified()
	mustContain(t, u, "-apiVersion: policy/v1beta1", "+apiVersion: policy/v1", "PodSecurityPolicy/legacy-restricted")
	if strings.Contains(u, "s3cr3t-") {
		t.Fatalf("the plan's diff shows the release's password:\n%s", u)
	}
}

// checkHelm4Fields holds the fix's revision to the record it copied, field
// for field, less the fields the fix writes, and the copied record to what
// it was, less its status.
func checkHelm4Fields(t *testing.T, r *fixAPIsRelease, before map[string]any) {
	t.Helper()
	if _, ok := before["apply_method"]; !ok {
		t.Fatalf("Helm 4's record has no apply_method: %v", before)
	}
	after, fixed := r.fields(t, 1), r.fields(t, 2)
	if st := after["info"].(map[string]any)["status"]; st != "superseded" {
		t.Errorf("revision 1 is %v after the fix, want superseded", st)
	}
	if d := diffFields(withoutFixed(before), withoutFixed(fixed)); len(d) > 0 {
		t.Errorf("the fix's revision differs from the one it copied beyond what the fix writes:\n%s", strings.Join(d, "\n"))
	}
	if d := diffFields(withoutFixed(before), withoutFixed(after)); len(d) > 0 {
		t.Errorf("the revision copied changed beyond its status:\n%s", strings.Join(d, "\n"))
	}
}

// checkRollbackWarns: a rollback plan to revision 1, which uses unserved
// APIs, warns; one to the fix's revision does not.
func checkRollbackWarns(t *testing.T, c *kube.Client, r *fixAPIsRelease) {
	t.Helper()
	ctx := t.Context()
	served, err := kube.NewChecker(c).ServedAPIs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		to   int
		warn bool
	}{{1, true}, {2, false}} {
		rb, err := planByName(ctx, c, r.ns, r.name, rollbackPlan(tc.to, kube.DiffOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		ra, err := ops.NewRunner(c).RollbackAPIs(ctx, rb, served)
		if err != nil {
			t.Fatal(err)
		}
		w := ra.Warnings(r.name, func(verb string, args ...string) string { return verb })
		if tc.warn != (len(w) == 1) || len(ra.Current) != 0 {
			t.Fatalf("rollback to %d: warnings %q (current %v); want one: %v", tc.to, w, ra.Current, tc.warn)
		}
		if tc.warn {
			mustContain(t, w[0], "revision 1 uses APIs the cluster no longer serves", "PodDisruptionBudget/legacy (policy/v1beta1)")
		}
	}
}
