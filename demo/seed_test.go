package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

var seedNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// seeded seeds one cluster for all the read-only tests below: Seed takes a second.
var seeded = sync.OnceValues(func() (*seededCluster, error) {
	c := fakeapi.NewCluster()
	f, err := Seed(context.Background(), c, SeedOptions{Now: seedNow})
	return &seededCluster{c, f}, err
})

type seededCluster struct {
	c *fakeapi.Cluster
	f *Fleet
}

func seed(t *testing.T) (*fakeapi.Cluster, *Fleet) {
	t.Helper()
	s, err := seeded()
	if err != nil {
		t.Fatal(err)
	}
	return s.c, s.f
}

// driver returns a driver that reads r's records: the chunked one, or Helm's own
// Secrets or ConfigMaps driver.
func (f *Fleet) driver(c *fakeapi.Cluster, r *SampleRelease) driver.Driver {
	switch r.Store {
	case StoreSecrets:
		return driver.NewSecrets(c.Clientset().CoreV1().Secrets(r.Namespace))
	case StoreConfigMaps:
		return driver.NewConfigMaps(c.Clientset().CoreV1().ConfigMaps(r.Namespace))
	}
	return storage.NewDriver(c.Clientset().CoreV1().Secrets(r.Namespace), r.Owner, f.Driver)
}

func mustRelease(t *testing.T, f *Fleet, ns, name string) *SampleRelease {
	t.Helper()
	r, ok := f.Release(ns, name)
	if !ok {
		t.Fatalf("no sample %s/%s", ns, name)
	}
	return r
}

func TestSeedWritesWhatItClaims(t *testing.T) {
	_, f := seed(t)
	type want struct {
		ns, name, releaseNS, owner string
		statuses                   []release.Status
		minChunks                  int // of the largest revision
		store                      Store
	}
	sup, dep, fail, pend := release.StatusSuperseded, release.StatusDeployed, release.StatusFailed, release.StatusPendingUpgrade
	wants := []want{
		{"demo", "podinfo", "demo", storage.HelmOwner, []release.Status{sup, sup, fail, dep}, 1, StoreChunked},
		{"demo", "web-frontend", "demo", storage.HelmOwner, []release.Status{sup, sup, dep}, 2, StoreChunked},
		{"demo", "grafana-dashboards", "monitoring", storage.HelmOwner, []release.Status{sup, dep}, 3, StoreChunked},
		{"payments", "payments-api", "payments", storage.HelmOwner, []release.Status{sup, sup, sup, dep, pend}, 1, StoreChunked},
		{"payments", "ledger", "payments", storage.HelmOwner, []release.Status{sup, sup, dep}, 3, StoreChunked},
		{"payments", "fraud-model", "payments", storage.HelmOwner, []release.Status{sup, dep}, 3, StoreChunked},
		{OLMNamespace, "cert-manager", "cert-manager", OLMOwner, []release.Status{sup, sup, dep}, 3, StoreChunked},
		{OLMNamespace, "argocd-operator", "argocd", OLMOwner, []release.Status{sup, dep}, 1, StoreChunked},
		{WebNamespace, RedisRelease, WebNamespace, storage.HelmOwner, []release.Status{sup, sup, sup, dep}, 1, StoreSecrets},
		{IngressNamespace, IngressNginxRelease, IngressNamespace, storage.HelmOwner, []release.Status{sup, sup, dep}, 1, StoreConfigMaps},
		{LoggingNamespace, LokiStackRelease, LoggingNamespace, storage.HelmOwner, []release.Status{sup, sup, sup, sup, dep}, 1, StoreSecrets},
	}
	if len(f.Releases) != len(wants) {
		t.Errorf("%d releases, want %d", len(f.Releases), len(wants))
	}
	for _, w := range wants {
		t.Run(w.name, func(t *testing.T) {
			r := mustRelease(t, f, w.ns, w.name)
			if r.ReleaseNamespace != w.releaseNS || r.Owner != w.owner || r.Store != w.store {
				t.Errorf("release namespace %q owner %q store %q, want %q %q %q", r.ReleaseNamespace, r.Owner, r.Store, w.releaseNS, w.owner, w.store)
			}
			var got []release.Status
			most := 0
			for i, rev := range r.Revisions {
				got = append(got, rev.Status)
				most = max(most, rev.Chunks)
				if rev.Revision != i+1 || rev.Key != storage.RecordKey(w.name, i+1) {
					t.Errorf("revision %d: number %d key %q", i+1, rev.Revision, rev.Key)
				}
				if rev.Release.Info.Status != rev.Status || rev.Release.Namespace != w.releaseNS {
					t.Errorf("revision %d: release status %s namespace %s", i+1, rev.Release.Info.Status, rev.Release.Namespace)
				}
				if lt := rev.Release.Info.LastDeployed.Time; !lt.Before(seedNow) || lt.Before(seedNow.Add(-200*day)) {
					t.Errorf("revision %d: last deployed %v is not in the recent past of %v", i+1, lt, seedNow)
				}
			}
			if !slices.Equal(got, w.statuses) {
				t.Errorf("statuses %v, want %v", got, w.statuses)
			}
			if most < w.minChunks {
				t.Errorf("largest revision spans %d chunks, want at least %d", most, w.minChunks)
			}
			if most > MaxChunks {
				t.Errorf("a revision spans %d chunks, over MaxChunks %d", most, MaxChunks)
			}
		})
	}
}

func TestSeedReadsBack(t *testing.T) {
	c, f := seed(t)
	broken := map[string]Damage{}
	for _, r := range f.Releases {
		drv := f.driver(c, &r)
		for _, rev := range r.Revisions {
			got, err := drv.Get(rev.Key)
			if rev.Damage != Undamaged {
				broken[r.Name+"/"+fmt.Sprint(rev.Revision)] = rev.Damage
				want := map[Damage]error{MissingChunk: storage.ErrChunkMissing, CorruptChunk: storage.ErrCorrupt}[rev.Damage]
				if !errors.Is(err, want) || !strings.Contains(err.Error(), rev.DamagedSecret) {
					t.Errorf("%s: read = %v, want %v naming %s", rev.Key, err, want, rev.DamagedSecret)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", rev.Key, err)
				continue
			}
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(rev.Release)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("%s reads back different from what was written", rev.Key)
			}
			if !maps.Equal(got.Labels, rev.Release.Labels) {
				t.Errorf("%s: custom labels %v, want %v", rev.Key, got.Labels, rev.Release.Labels)
			}
		}
	}
	if want := map[string]Damage{"ledger/3": MissingChunk, "fraud-model/1": CorruptChunk}; fmt.Sprint(broken) != fmt.Sprint(want) {
		t.Errorf("damaged revisions %v, want %v", broken, want)
	}
}

func TestSeedVerify(t *testing.T) {
	c, f := seed(t)
	tests := []struct {
		ns, owner string
		want      []storage.ProblemKind
	}{
		{"demo", storage.HelmOwner, nil},
		{"payments", storage.HelmOwner, []storage.ProblemKind{storage.ProblemHashMismatch, storage.ProblemMissingChunk}},
		{OLMNamespace, OLMOwner, []storage.ProblemKind{storage.ProblemOrphanChunk}},
		// Helm's own Secrets are no concern of the chunked format's checks.
		{WebNamespace, storage.HelmOwner, nil},
		{LoggingNamespace, storage.HelmOwner, nil},
	}
	for _, tc := range tests {
		t.Run(tc.ns, func(t *testing.T) {
			rep, err := storage.Verify(context.Background(), c.Clientset().CoreV1().Secrets(tc.ns), tc.owner, storage.VerifyOptions{Decode: true, Config: f.Driver})
			if err != nil {
				t.Fatal(err)
			}
			var got []storage.ProblemKind
			for _, p := range rep.Problems {
				got = append(got, p.Kind)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems %v, want %v: %+v", got, tc.want, rep.Problems)
			}
		})
	}
	if len(f.Orphans) != 1 {
		t.Fatalf("orphans %+v", f.Orphans)
	}
	o := f.Orphans[0]
	if _, err := c.Clientset().CoreV1().Secrets(o.Namespace).Get(context.Background(), o.Key, metav1.GetOptions{}); err == nil {
		t.Errorf("the orphan's key %s has an index", o.Key)
	}
	left, err := storage.FindLeftovers(context.Background(), c.Clientset().CoreV1().Secrets(o.Namespace), o.Owner, 0)
	if err != nil || len(left) != 1 || left[0].Name != o.Name {
		t.Errorf("leftovers %+v, %v, want the orphan %s", left, err, o.Name)
	}
}

func TestSeedThroughHelmStorage(t *testing.T) {
	c, f := seed(t)
	tests := []struct {
		ns, name     string
		history      int
		deployed     int
		lastStatus   release.Status
		pendingSince time.Duration
	}{
		{"demo", "podinfo", 4, 4, release.StatusDeployed, 0},
		{"payments", "payments-api", 5, 4, release.StatusPendingUpgrade, 47 * time.Minute},
		{OLMNamespace, "argocd-operator", 2, 2, release.StatusDeployed, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRelease(t, f, tc.ns, tc.name)
			s := helmstorage.Init(f.driver(c, r))
			hist, err := s.History(tc.name)
			if err != nil || len(hist) != tc.history {
				t.Fatalf("history = %d releases, %v; want %d", len(hist), err, tc.history)
			}
			dep, err := s.Deployed(tc.name)
			if err != nil || dep.Version != tc.deployed {
				t.Fatalf("deployed = %v, %v; want revision %d", dep, err, tc.deployed)
			}
			last, err := s.Last(tc.name)
			if err != nil || last.Info.Status != tc.lastStatus {
				t.Fatalf("last = %v, %v; want status %s", last, err, tc.lastStatus)
			}
			if tc.pendingSince > 0 {
				if got := seedNow.Sub(last.Info.LastDeployed.Time); got != tc.pendingSince {
					t.Errorf("pending for %v, want %v", got, tc.pendingSince)
				}
				var running bool
				for _, h := range last.Hooks {
					running = running || h.LastRun.Phase == release.HookPhaseRunning
				}
				if !running {
					t.Error("the stuck upgrade has no running hook")
				}
			}
		})
	}
}

func TestSeedContent(t *testing.T) {
	_, f := seed(t)
	pay := mustRelease(t, f, "payments", "payments-api")
	var passwords []string
	for _, rev := range pay.Revisions {
		pw, err := chartutil.Values(rev.Release.Config).PathValue("database.password")
		if err != nil {
			t.Fatalf("revision %d: %v", rev.Revision, err)
		}
		passwords = append(passwords, fmt.Sprint(pw))
	}
	if len(slices.Compact(slices.Clone(passwords))) < 2 {
		t.Errorf("database.password never changes: %v", passwords)
	}
	latest := pay.Revisions[3].Release
	for _, kind := range []string{"kind: Deployment", "kind: Service", "kind: ConfigMap", "kind: Secret", "kind: HorizontalPodAutoscaler", "# Source: payments-api/templates/"} {
		if !strings.Contains(latest.Manifest, kind) {
			t.Errorf("payments-api v4 manifest lacks %q", kind)
		}
	}
	var events []string
	for _, h := range latest.Hooks {
		for _, e := range h.Events {
			events = append(events, h.Kind+"/"+string(e))
		}
	}
	if !slices.Contains(events, "Job/pre-upgrade") || !slices.Contains(events, "Pod/test") {
		t.Errorf("hooks %v, want a pre-upgrade Job and a test Pod", events)
	}
	if latest.Info.Notes == "" || latest.Chart.Metadata.Name != "payments-api" || latest.Chart.Metadata.AppVersion == "" {
		t.Errorf("notes %q, chart %+v", latest.Info.Notes, latest.Chart.Metadata)
	}
	pod := mustRelease(t, f, "demo", "podinfo")
	if d := pod.Revisions[3].Release.Info.Description; d != "Rollback to 2" {
		t.Errorf("podinfo v4 description %q", d)
	}
	if d := pod.Revisions[2].Release.Info.Description; !strings.HasPrefix(d, `Upgrade "podinfo" failed: `) {
		t.Errorf("podinfo v3 description %q", d)
	}
	if a, b := pod.Revisions[1].Release.Manifest, pod.Revisions[3].Release.Manifest; a != b {
		t.Error("the rollback does not carry revision 2's manifest")
	}
}

func TestSeedIndexLabels(t *testing.T) {
	c, f := seed(t)
	md := c.Metadata().Resource(secretsGVR)
	for _, r := range f.Releases {
		if r.Store != StoreChunked {
			continue
		}
		list, err := md.Namespace(r.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: "owner=" + r.Owner + ",type=index,name=" + r.Name})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != len(r.Revisions) {
			t.Errorf("%s: %d index Secrets, want %d", r.Name, len(list.Items), len(r.Revisions))
			continue
		}
		for i, p := range list.Items {
			rev := r.Revisions[i]
			if p.Name != rev.Key || p.Labels["status"] != string(rev.Status) || p.Labels["version"] != fmt.Sprint(rev.Revision) {
				t.Errorf("%s: labels %v", p.Name, p.Labels)
			}
			// Helm updates a revision when it supersedes it: the driver marks that.
			if _, ok := p.Labels["modifiedAt"]; ok != (rev.Status != release.StatusPendingUpgrade) {
				t.Errorf("%s (%s): modifiedAt present = %v", p.Name, rev.Status, ok)
			}
		}
	}
}

func TestSeedDeterministic(t *testing.T) {
	_, f := seed(t)
	c2 := fakeapi.NewCluster()
	f2, err := Seed(context.Background(), c2, SeedOptions{Now: seedNow, Intact: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(f2.Orphans) != 0 {
		t.Errorf("intact seed left orphans %v", f2.Orphans)
	}
	for i, r := range f.Releases {
		for j, rev := range r.Revisions {
			other := f2.Releases[i].Revisions[j]
			if other.StoredBytes != rev.StoredBytes || other.Chunks != rev.Chunks || other.Damage != Undamaged {
				t.Errorf("%s: %d bytes in %d chunks, then %d in %d (damage %q)", rev.Key, rev.StoredBytes, rev.Chunks, other.StoredBytes, other.Chunks, other.Damage)
			}
			if _, err := f2.driver(c2, &f2.Releases[i]).Get(other.Key); err != nil {
				t.Errorf("intact %s: %v", other.Key, err)
			}
		}
	}
}
