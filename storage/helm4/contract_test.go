package helm4_test

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v4/pkg/release"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage/chunked"
	"github.com/chunkview/chunkview/storage/helm4"
)

// contractPayload makes a contract release of about three chunks.
const contractPayload = 2*chunkSize + chunkSize/2

// TestContract is the driver contract in Helm 4's own terms, what Helm 4's storage
// relies on, checked against Helm 4's memory driver as the reference and against
// the Helm 4 chunked driver on the real server: Releaser values of type
// *release/v1.Release, List filters of func(release.Releaser) bool, and Helm 4's
// fixed errors, returned unwrapped.
func TestContract(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(t *testing.T) driver.Driver
		// customLabels is whether Query matches custom labels: Helm's memory driver
		// keeps only name, owner, status and version as a record's labels.
		customLabels bool
	}{
		{"memory", func(*testing.T) driver.Driver { return driver.NewMemory() }, false},
		{"chunked", func(t *testing.T) driver.Driver {
			_, secrets := newNamespace(t)
			return helm4.NewChunkedSecrets(secrets, testOwner, chunked.Config{ChunkSize: chunkSize})
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) { runContract(t, tc.new, tc.customLabels) })
	}
}

func contractReleases() []*rspb.Release {
	a1 := fullRelease("alpha", 1, common.StatusSuperseded, contractPayload, 1)
	a2 := fullRelease("alpha", 2, common.StatusDeployed, contractPayload/2, 2)
	b1 := fullRelease("beta", 1, common.StatusDeployed, 300, 3)
	b1.Labels = map[string]string{"team": "search"}
	b2 := fullRelease("beta", 2, common.StatusFailed, contractPayload, 4)
	b2.Labels = map[string]string{"team": "search", "tier": "bronze"}
	return []*rspb.Release{a1, a2, b1, b2}
}

func runContract(t *testing.T, newDriver func(t *testing.T) driver.Driver, customLabels bool) {
	mustCreate := func(t *testing.T, d driver.Driver, rs ...*rspb.Release) {
		t.Helper()
		for _, r := range rs {
			if err := d.Create(key(r.Name, r.Version), r); err != nil {
				t.Fatalf("Create %s v%d: %v", r.Name, r.Version, err)
			}
		}
	}
	mustSet := func(t *testing.T, what string, want []*rspb.Release, got []release.Releaser) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s returned %d releases, want %d", what, len(got), len(want))
		}
		byKey := func(rs []release.Releaser) []release.Releaser {
			sort.Slice(rs, func(i, j int) bool {
				a, b := rs[i].(*rspb.Release), rs[j].(*rspb.Release)
				return key(a.Name, a.Version) < key(b.Name, b.Version)
			})
			return rs
		}
		got = byKey(slices.Clone(got))
		sorted := byKey(anysReleasers(want))
		for i := range got {
			mustSameRelease(t, what, sorted[i].(*rspb.Release), got[i])
		}
	}

	t.Run("create and get", func(t *testing.T) {
		d := newDriver(t)
		mustCreate(t, d, fullRelease("alpha", 1, common.StatusDeployed, contractPayload, 1))
		got, err := d.Get(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustSameRelease(t, "Get", fullRelease("alpha", 1, common.StatusDeployed, contractPayload, 1), got)
	})

	t.Run("create takes a value too", func(t *testing.T) {
		d := newDriver(t)
		v := *fullRelease("alpha", 1, common.StatusDeployed, 300, 1)
		if err := d.Create(key("alpha", 1), v); err != nil {
			t.Fatalf("Create of an rspb.Release value: %v", err)
		}
		got, err := d.Get(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustSameRelease(t, "Get", &v, got)
	})

	t.Run("create existing returns ErrReleaseExists", func(t *testing.T) {
		d := newDriver(t)
		mustCreate(t, d, fullRelease("alpha", 1, common.StatusDeployed, contractPayload, 1))
		if err := d.Create(key("alpha", 1), fullRelease("alpha", 1, common.StatusFailed, contractPayload, 9)); err != driver.ErrReleaseExists {
			t.Fatalf("second Create: got %v (%T), want Helm 4's driver.ErrReleaseExists itself", err, err)
		}
		got, err := d.Get(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustSameRelease(t, "Get", fullRelease("alpha", 1, common.StatusDeployed, contractPayload, 1), got)
	})

	t.Run("get missing returns ErrReleaseNotFound", func(t *testing.T) {
		d := newDriver(t)
		mustCreate(t, d, fullRelease("alpha", 1, common.StatusDeployed, contractPayload, 1))
		got, err := d.Get(key("alpha", 2))
		if err != driver.ErrReleaseNotFound {
			t.Fatalf("Get of a missing revision: got %v (%T), want Helm 4's driver.ErrReleaseNotFound itself", err, err)
		}
		if got != nil {
			t.Fatalf("Get of a missing revision returned a non-nil Releaser %#v", got)
		}
	})

	t.Run("update", func(t *testing.T) {
		d := newDriver(t)
		mustCreate(t, d, fullRelease("alpha", 1, common.StatusDeployed, contractPayload, 1))
		next := fullRelease("alpha", 1, common.StatusSuperseded, 2*contractPayload, 7)
		if err := d.Update(key("alpha", 1), next); err != nil {
			t.Fatal(err)
		}
		got, err := d.Get(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustSameRelease(t, "Get after Update", next, got)
	})

	t.Run("update missing returns ErrReleaseNotFound", func(t *testing.T) {
		d := newDriver(t)
		if err := d.Update(key("alpha", 2), fullRelease("alpha", 2, common.StatusDeployed, 300, 1)); err != driver.ErrReleaseNotFound {
			t.Fatalf("Update of a missing key: got %v (%T), want Helm 4's driver.ErrReleaseNotFound itself", err, err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		d := newDriver(t)
		mustCreate(t, d, fullRelease("alpha", 1, common.StatusSuperseded, contractPayload, 1), fullRelease("alpha", 2, common.StatusDeployed, contractPayload, 2))
		got, err := d.Delete(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustSameRelease(t, "Delete", fullRelease("alpha", 1, common.StatusSuperseded, contractPayload, 1), got)
		got, err = d.Delete(key("alpha", 1))
		if err != driver.ErrReleaseNotFound || got != nil {
			t.Fatalf("second Delete: got %v, %v (%T), want a nil Releaser and Helm 4's driver.ErrReleaseNotFound itself", got, err, err)
		}
		if _, err := d.Get(key("alpha", 2)); err != nil {
			t.Fatalf("the other revision: %v", err)
		}
	})

	t.Run("list with filter", func(t *testing.T) {
		d := newDriver(t)
		mustCreate(t, d, contractReleases()...)
		all, err := d.List(func(release.Releaser) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		mustSet(t, "List(all)", contractReleases(), all)
		deployed := func(r release.Releaser) bool { return r.(*rspb.Release).Info.Status == common.StatusDeployed }
		got, err := d.List(deployed)
		if err != nil {
			t.Fatal(err)
		}
		var want []*rspb.Release
		for _, r := range contractReleases() {
			if deployed(r) {
				want = append(want, r)
			}
		}
		mustSet(t, "List(deployed)", want, got)
		none, err := d.List(func(release.Releaser) bool { return false })
		if err != nil || len(none) != 0 {
			t.Fatalf("List matching nothing: %d releases, %v; want none and no error", len(none), err)
		}
	})

	t.Run("query", func(t *testing.T) {
		d := newDriver(t)
		mustCreate(t, d, contractReleases()...)
		pick := func(fn func(r *rspb.Release) bool) []*rspb.Release {
			var out []*rspb.Release
			for _, r := range contractReleases() {
				if fn(r) {
					out = append(out, r)
				}
			}
			return out
		}
		for _, q := range []struct {
			labels map[string]string
			want   []*rspb.Release
		}{
			// What Helm 4's storage asks: History, Deployed/DeployedAll.
			{map[string]string{"name": "alpha", "owner": "helm"}, pick(func(r *rspb.Release) bool { return r.Name == "alpha" })},
			{map[string]string{"name": "alpha", "owner": "helm", "status": "deployed"}, pick(func(r *rspb.Release) bool {
				return r.Name == "alpha" && r.Info.Status == common.StatusDeployed
			})},
			{map[string]string{"owner": "helm", "version": "2"}, pick(func(r *rspb.Release) bool { return r.Version == 2 })},
		} {
			got, err := d.Query(q.labels)
			if err != nil {
				t.Fatalf("Query(%v): %v", q.labels, err)
			}
			mustSet(t, fmt.Sprintf("Query(%v)", q.labels), q.want, got)
		}
		for _, q := range []map[string]string{
			{"name": "nope", "owner": "helm"},
			{"name": "alpha", "owner": "helm", "status": "failed"},
			{"name": "alpha", "owner": "someone-else"},
		} {
			if got, err := d.Query(q); err != driver.ErrReleaseNotFound || got != nil {
				t.Fatalf("Query(%v) matching nothing: got %d releases, %v (%T), want Helm 4's driver.ErrReleaseNotFound itself", q, len(got), err, err)
			}
		}
		got, err := d.Query(map[string]string{"team": "search"})
		if !customLabels {
			if err != driver.ErrReleaseNotFound {
				t.Fatalf("memory Query by a custom label: %d releases, %v; Helm's memory driver matches none", len(got), err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		mustSet(t, "Query(team=search)", pick(func(r *rspb.Release) bool { return r.Labels["team"] == "search" }), got)
	})
}

// TestRefusesOtherTypes: a write of anything but a Helm 4 release, nil among
// them, is refused with an error, where Helm's memory driver would panic.
func TestRefusesOtherTypes(t *testing.T) {
	_, secrets := newNamespace(t)
	d := helm4.NewChunkedSecrets(secrets, testOwner, chunked.Config{ChunkSize: chunkSize})
	for _, bad := range []release.Releaser{nil, (*rspb.Release)(nil), "a string", struct{ Name string }{"x"}} {
		for op, write := range map[string]func(string, release.Releaser) error{"Create": d.Create, "Update": d.Update} {
			if err := write(key("alpha", 1), bad); err == nil || errors.Is(err, driver.ErrReleaseExists) || errors.Is(err, driver.ErrReleaseNotFound) {
				t.Fatalf("%s of %#v: %v, want an error that says what it was given", op, bad, err)
			}
		}
	}
	if got, err := secrets.List(t.Context(), metav1.ListOptions{}); err != nil || len(got.Items) != 0 {
		t.Fatalf("the refused writes left %d Secrets (%v)", len(got.Items), err)
	}
}

func anysReleasers(rs []*rspb.Release) []release.Releaser {
	out := make([]release.Releaser, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}
