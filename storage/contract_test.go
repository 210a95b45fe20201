package storage_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// driverUnderTest is a driver for the contract suite and what the suite needs to know
// about it.
type driverUnderTest struct {
	driver.Driver
	// customLabelQuery is whether Query matches labels other than name, owner, status
	// and version. Helm's memory driver builds a record's labels from those four
	// alone (driver.newRecord), so a query for a custom label finds nothing there;
	// the Secrets and chunked drivers match custom labels.
	customLabelQuery bool
	// check, when set, runs after every case: the stored state must be sound (no torn
	// record, nothing left over).
	check func(t *testing.T)
}

// contractChunkSize makes the contract's releases span several chunks cheaply.
const contractChunkSize = 4 << 10

// contractPayload compresses to about three chunks of contractChunkSize.
const contractPayload = 2*contractChunkSize + contractChunkSize/2

func TestContractMemory(t *testing.T) {
	runContract(t, func(t *testing.T) driverUnderTest {
		// The memory driver keeps releases per namespace and reads in the namespace of
		// the last write; every release of the suite is in "default", as Helm's own
		// memory tests do.
		return driverUnderTest{Driver: driver.NewMemory()}
	})
}

// TestContractChunked runs the contract against both adapters over the chunked
// core, Helm 3's and Helm 4's.
func TestContractChunked(t *testing.T) {
	forEachAdapter(t, testContractChunked)
}

func testContractChunked(t *testing.T, ad chunkedAdapter) {
	runContract(t, func(t *testing.T) driverUnderTest {
		_, secrets := newNamespace(t)
		d := ad.new(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: contractChunkSize})
		return driverUnderTest{Driver: d, customLabelQuery: true, check: func(t *testing.T) {
			t.Helper()
			mustAllReadable(t, secrets, testOwner)
			los, err := storage.FindLeftovers(t.Context(), secrets, testOwner, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(los) != 0 {
				t.Fatalf("chunk Secrets left over: %v", los)
			}
		}}
	})
}

// runContract is the driver contract: what Helm's storage layer relies on, checked
// the same way against every driver.
func runContract(t *testing.T, newDriver func(t *testing.T) driverUnderTest) {
	run := func(name string, fn func(t *testing.T, d driverUnderTest)) {
		t.Run(name, func(t *testing.T) {
			d := newDriver(t)
			fn(t, d)
			if d.check != nil {
				d.check(t)
			}
		})
	}

	run("create and get", func(t *testing.T, d driverUnderTest) {
		want := testRelease("alpha", 1, release.StatusDeployed, contractPayload)
		mustCreate(t, d, want)
		got, err := d.Get(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustEqualRelease(t, testRelease("alpha", 1, release.StatusDeployed, contractPayload), got)
	})

	run("create existing returns ErrReleaseExists", func(t *testing.T, d driverUnderTest) {
		mustCreate(t, d, testRelease("alpha", 1, release.StatusDeployed, contractPayload))
		other := testReleaseSeed("alpha", 1, release.StatusFailed, contractPayload, 42)
		if err := d.Create(key("alpha", 1), other); err != driver.ErrReleaseExists {
			t.Fatalf("second Create: got %v (%T), want driver.ErrReleaseExists itself", err, err)
		}
		// The same release again: nothing the stored record uses may be removed.
		if err := d.Create(key("alpha", 1), testRelease("alpha", 1, release.StatusDeployed, contractPayload)); err != driver.ErrReleaseExists {
			t.Fatalf("identical second Create: got %v (%T), want driver.ErrReleaseExists itself", err, err)
		}
		got, err := d.Get(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustEqualRelease(t, testRelease("alpha", 1, release.StatusDeployed, contractPayload), got)
	})

	run("get missing returns ErrReleaseNotFound", func(t *testing.T, d driverUnderTest) {
		mustCreate(t, d, testRelease("alpha", 1, release.StatusDeployed, contractPayload))
		if _, err := d.Get(key("alpha", 2)); err != driver.ErrReleaseNotFound {
			t.Fatalf("Get of a missing revision: got %v (%T), want driver.ErrReleaseNotFound itself", err, err)
		}
		if _, err := d.Get(key("beta", 1)); err != driver.ErrReleaseNotFound {
			t.Fatalf("Get of a missing release: got %v (%T), want driver.ErrReleaseNotFound itself", err, err)
		}
	})

	run("update", func(t *testing.T, d driverUnderTest) {
		mustCreate(t, d, testRelease("alpha", 1, release.StatusDeployed, contractPayload))
		next := testReleaseSeed("alpha", 1, release.StatusSuperseded, contractPayload*2, 7)
		if err := d.Update(key("alpha", 1), next); err != nil {
			t.Fatal(err)
		}
		got, err := d.Get(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustEqualRelease(t, testReleaseSeed("alpha", 1, release.StatusSuperseded, contractPayload*2, 7), got)
		// And back to a smaller record: fewer chunks than before.
		if err := d.Update(key("alpha", 1), testRelease("alpha", 1, release.StatusSuperseded, 100)); err != nil {
			t.Fatal(err)
		}
		got, err = d.Get(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustEqualRelease(t, testRelease("alpha", 1, release.StatusSuperseded, 100), got)
	})

	run("update missing returns ErrReleaseNotFound", func(t *testing.T, d driverUnderTest) {
		mustCreate(t, d, testRelease("alpha", 1, release.StatusDeployed, contractPayload))
		if err := d.Update(key("alpha", 2), testRelease("alpha", 2, release.StatusDeployed, contractPayload)); err != driver.ErrReleaseNotFound {
			t.Fatalf("Update of a missing key: got %v (%T), want driver.ErrReleaseNotFound itself", err, err)
		}
		if _, err := d.Get(key("alpha", 2)); err != driver.ErrReleaseNotFound {
			t.Fatalf("Update of a missing key created it: Get returned %v", err)
		}
	})

	run("delete", func(t *testing.T, d driverUnderTest) {
		mustCreate(t, d, testRelease("alpha", 1, release.StatusSuperseded, contractPayload))
		mustCreate(t, d, testRelease("alpha", 2, release.StatusDeployed, contractPayload))
		got, err := d.Delete(key("alpha", 1))
		if err != nil {
			t.Fatal(err)
		}
		mustEqualRelease(t, testRelease("alpha", 1, release.StatusSuperseded, contractPayload), got)
		if _, err := d.Get(key("alpha", 1)); err != driver.ErrReleaseNotFound {
			t.Fatalf("Get after Delete: got %v, want driver.ErrReleaseNotFound itself", err)
		}
		if _, err := d.Delete(key("alpha", 1)); err != driver.ErrReleaseNotFound {
			t.Fatalf("second Delete: got %v (%T), want driver.ErrReleaseNotFound itself", err, err)
		}
		// The other revision is untouched.
		got, err = d.Get(key("alpha", 2))
		if err != nil {
			t.Fatal(err)
		}
		mustEqualRelease(t, testRelease("alpha", 2, release.StatusDeployed, contractPayload), got)
	})

	run("list with filter", func(t *testing.T, d driverUnderTest) {
		for _, r := range contractReleases() {
			mustCreate(t, d, r)
		}
		all, err := d.List(func(*release.Release) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		mustEqualSet(t, "List(all)", contractReleases(), all)
		deployed, err := d.List(func(r *release.Release) bool { return r.Info.Status == release.StatusDeployed })
		if err != nil {
			t.Fatal(err)
		}
		mustEqualSet(t, "List(deployed)", pick(contractReleases(), func(r *release.Release) bool { return r.Info.Status == release.StatusDeployed }), deployed)
		none, err := d.List(func(*release.Release) bool { return false })
		if err != nil {
			t.Fatalf("List matching nothing: %v (an empty list is not an error)", err)
		}
		if len(none) != 0 {
			t.Fatalf("List matching nothing returned %d releases", len(none))
		}
	})

	run("query", func(t *testing.T, d driverUnderTest) {
		for _, r := range contractReleases() {
			mustCreate(t, d, r)
		}
		want := func(fn func(r *release.Release) bool) []*release.Release { return pick(contractReleases(), fn) }
		for _, q := range []struct {
			labels map[string]string
			want   []*release.Release
		}{
			// The queries Helm's storage layer makes: History, Deployed, DeployedAll.
			{map[string]string{"name": "alpha", "owner": "helm"}, want(func(r *release.Release) bool { return r.Name == "alpha" })},
			{map[string]string{"name": "alpha", "owner": "helm", "status": "deployed"}, want(func(r *release.Release) bool {
				return r.Name == "alpha" && r.Info.Status == release.StatusDeployed
			})},
			{map[string]string{"owner": "helm"}, contractReleases()},
			{map[string]string{"owner": "helm", "version": "2"}, want(func(r *release.Release) bool { return r.Version == 2 })},
			{map[string]string{"status": "superseded"}, want(func(r *release.Release) bool { return r.Info.Status == release.StatusSuperseded })},
		} {
			got, err := d.Query(q.labels)
			if err != nil {
				t.Fatalf("Query(%v): %v", q.labels, err)
			}
			mustEqualSet(t, fmt.Sprintf("Query(%v)", q.labels), q.want, got)
		}
		for _, q := range []map[string]string{
			{"name": "nope", "owner": "helm"},
			{"name": "alpha", "owner": "helm", "status": "failed"},
			{"name": "alpha", "owner": "someone-else"},
			{"owner": "helm", "version": "9"},
		} {
			if got, err := d.Query(q); err != driver.ErrReleaseNotFound {
				t.Fatalf("Query(%v) matching nothing: got %d releases, %v (%T), want driver.ErrReleaseNotFound itself", q, len(got), err, err)
			}
		}
	})

	run("query by custom labels", func(t *testing.T, d driverUnderTest) {
		for _, r := range contractReleases() {
			mustCreate(t, d, r)
		}
		q := map[string]string{"team": "search"}
		got, err := d.Query(q)
		if !d.customLabelQuery {
			// Reference behaviour of the memory driver: custom labels are not part of a
			// record's labels, so nothing matches.
			if err != driver.ErrReleaseNotFound {
				t.Fatalf("memory Query(%v): got %d releases, %v; Helm's memory driver is expected not to match custom labels", q, len(got), err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Query(%v): %v", q, err)
		}
		mustEqualSet(t, "Query(team=search)", pick(contractReleases(), func(r *release.Release) bool { return r.Labels["team"] == "search" }), got)
		q = map[string]string{"name": "alpha", "owner": "helm", "tier": "gold", "status": "deployed"}
		got, err = d.Query(q)
		if err != nil {
			t.Fatalf("Query(%v): %v", q, err)
		}
		mustEqualSet(t, "Query(system and custom)", pick(contractReleases(), func(r *release.Release) bool {
			return r.Name == "alpha" && r.Info.Status == release.StatusDeployed
		}), got)
		if got, err := d.Query(map[string]string{"team": "nobody"}); err != driver.ErrReleaseNotFound {
			t.Fatalf("Query for an unused custom label: got %d releases, %v, want driver.ErrReleaseNotFound itself", len(got), err)
		}
	})

	run("labels identical from get, list and query", func(t *testing.T, d driverUnderTest) {
		for _, r := range contractReleases() {
			mustCreate(t, d, r)
		}
		byKey := func(rs []*release.Release) map[string]map[string]string {
			out := map[string]map[string]string{}
			for _, r := range rs {
				out[key(r.Name, r.Version)] = r.Labels
			}
			return out
		}
		listed, err := d.List(func(*release.Release) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		queried, err := d.Query(map[string]string{"owner": "helm"})
		if err != nil {
			t.Fatal(err)
		}
		fromList, fromQuery := byKey(listed), byKey(queried)
		for _, want := range contractReleases() {
			k := key(want.Name, want.Version)
			got, err := d.Get(k)
			if err != nil {
				t.Fatal(err)
			}
			for src, lbs := range map[string]map[string]string{"Get": got.Labels, "List": fromList[k], "Query": fromQuery[k]} {
				if fmt.Sprint(lbs) != fmt.Sprint(want.Labels) {
					t.Errorf("%s of %s returned labels %v, want the custom labels %v and nothing else", src, k, lbs, want.Labels)
				}
				for l := range lbs {
					if storage.IsSystemLabel(l) {
						t.Errorf("%s of %s returned system label %q", src, k, l)
					}
				}
			}
		}
	})
}

// contractReleases returns fresh copies of the releases of the list and query cases:
// two releases, three revisions, different statuses and custom labels.
func contractReleases() []*release.Release {
	a1 := testRelease("alpha", 1, release.StatusSuperseded, contractPayload)
	a2 := testRelease("alpha", 2, release.StatusDeployed, contractPayload/2)
	b1 := testRelease("beta", 1, release.StatusDeployed, 300)
	b1.Labels = map[string]string{"team": "search"}
	b2 := testRelease("beta", 2, release.StatusFailed, contractPayload)
	b2.Labels = map[string]string{"team": "search", "tier": "bronze"}
	return []*release.Release{a1, a2, b1, b2}
}

func mustCreate(t *testing.T, d driver.Driver, rls *release.Release) {
	t.Helper()
	if err := d.Create(key(rls.Name, rls.Version), rls); err != nil {
		t.Fatalf("Create %s v%d: %v", rls.Name, rls.Version, err)
	}
}

func pick(rs []*release.Release, fn func(*release.Release) bool) []*release.Release {
	var out []*release.Release
	for _, r := range rs {
		if fn(r) {
			out = append(out, r)
		}
	}
	return out
}

// mustEqualSet compares releases regardless of order.
func mustEqualSet(t *testing.T, what string, want, got []*release.Release) {
	t.Helper()
	order := func(rs []*release.Release) {
		sort.Slice(rs, func(i, j int) bool { return key(rs[i].Name, rs[i].Version) < key(rs[j].Name, rs[j].Version) })
	}
	want, got = slices.Clone(want), slices.Clone(got)
	order(want)
	order(got)
	if len(want) != len(got) {
		keys := func(rs []*release.Release) (out []string) {
			for _, r := range rs {
				out = append(out, key(r.Name, r.Version))
			}
			return out
		}
		t.Fatalf("%s returned %v, want %v", what, keys(got), keys(want))
	}
	for i := range want {
		mustEqualRelease(t, want[i], got[i])
	}
}
