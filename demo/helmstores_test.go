package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

// record is one revision as stored by Helm's own drivers, kind apart.
type record struct {
	name   string
	labels map[string]string
	data   string
}

// helmRecords lists what Helm's driver would list for name in ns: owner=helm and
// name=name, in key order.
func helmRecords(t *testing.T, c *fakeapi.Cluster, s HelmStoreSample) []record {
	t.Helper()
	ctx := context.Background()
	opts := metav1.ListOptions{LabelSelector: "owner=helm,name=" + s.Name}
	var out []record
	switch s.Store {
	case StoreSecrets:
		l, err := c.Clientset().CoreV1().Secrets(s.Namespace).List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			if o.Type != HelmSecretType {
				t.Errorf("%s: type %q, want %q", o.Name, o.Type, HelmSecretType)
			}
			out = append(out, record{o.Name, o.Labels, string(o.Data[HelmReleaseKey])})
		}
	case StoreConfigMaps:
		l, err := c.Clientset().CoreV1().ConfigMaps(s.Namespace).List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			out = append(out, record{o.Name, o.Labels, o.Data[HelmReleaseKey]})
		}
	default:
		t.Fatalf("%s: store %q is not one of Helm's", s.Name, s.Store)
	}
	return out
}

func helmDriver(c *fakeapi.Cluster, s HelmStoreSample) driver.Driver {
	if s.Store == StoreConfigMaps {
		return driver.NewConfigMaps(c.Clientset().CoreV1().ConfigMaps(s.Namespace))
	}
	return driver.NewSecrets(c.Clientset().CoreV1().Secrets(s.Namespace))
}

func TestHelmStoreSamples(t *testing.T) {
	c, f := seed(t)
	got := HelmStoreSamples()
	want := []HelmStoreSample{
		{WebNamespace, RedisRelease, StoreSecrets, 4},
		{IngressNamespace, IngressNginxRelease, StoreConfigMaps, 3},
		{LoggingNamespace, LokiStackRelease, StoreSecrets, 5},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("HelmStoreSamples() = %+v, want %+v", got, want)
	}
	for _, hs := range got {
		t.Run(hs.Name, func(t *testing.T) {
			r := mustRelease(t, f, hs.Namespace, hs.Name)
			if r.Store != hs.Store || r.Owner != storage.HelmOwner || len(r.Revisions) != hs.Revisions {
				t.Fatalf("fleet has store %q owner %q and %d revisions", r.Store, r.Owner, len(r.Revisions))
			}
			recs := helmRecords(t, c, hs)
			if len(recs) != hs.Revisions {
				t.Fatalf("%d records labelled owner=helm,name=%s, want %d", len(recs), hs.Name, hs.Revisions)
			}
			drv := helmDriver(c, hs)
			for i, rec := range recs {
				rev := r.Revisions[i]
				wantStatus := release.StatusSuperseded
				if i == len(recs)-1 {
					wantStatus = release.StatusDeployed
				}
				if rec.name != rev.Key || rev.Status != wantStatus {
					t.Errorf("record %d: %s status %s, want %s %s", i+1, rec.name, rev.Status, rev.Key, wantStatus)
				}
				// Helm's labels, as its driver's Update leaves them: every revision
				// was updated at least once (to its outcome, then superseded).
				lbs := rec.labels
				if lbs["name"] != hs.Name || lbs["owner"] != "helm" || lbs["status"] != string(wantStatus) || lbs["version"] != strconv.Itoa(i+1) {
					t.Errorf("%s: labels %v", rec.name, lbs)
				}
				if _, err := strconv.ParseInt(lbs["modifiedAt"], 10, 64); err != nil {
					t.Errorf("%s: modifiedAt %q: %v", rec.name, lbs["modifiedAt"], err)
				}
				for k, v := range rev.Release.Labels {
					if lbs[k] != v {
						t.Errorf("%s: custom label %s=%q, want %q", rec.name, k, lbs[k], v)
					}
				}
				if int64(len(rec.data)) != rev.StoredBytes || rev.Chunks != 1 {
					t.Errorf("%s: %d bytes stored, fleet says %d in %d objects", rec.name, len(rec.data), rev.StoredBytes, rev.Chunks)
				}
				if _, _, ok := storage.ParseKey(rec.name); !ok {
					t.Errorf("%s is not a record key", rec.name)
				}

				// Helm's own driver decodes it into what was written.
				rls, err := drv.Get(rev.Key)
				if err != nil {
					t.Fatalf("%s through Helm's %s driver: %v", rev.Key, drv.Name(), err)
				}
				gotJSON, _ := json.Marshal(rls)
				wantJSON, _ := json.Marshal(rev.Release)
				if string(gotJSON) != string(wantJSON) {
					t.Errorf("%s reads back through Helm's driver different from what was written", rev.Key)
				}
			}
			s := helmstorage.Init(drv)
			dep, err := s.Deployed(hs.Name)
			if err != nil || dep.Version != hs.Revisions {
				t.Errorf("deployed = %v, %v; want revision %d", dep, err, hs.Revisions)
			}
			hist, err := s.History(hs.Name)
			if err != nil || len(hist) != hs.Revisions {
				t.Errorf("history = %d revisions, %v", len(hist), err)
			}
			// Nothing of the chunked format beside them.
			idx, err := c.Clientset().CoreV1().Secrets(hs.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: "type in (index,chunk)"})
			if err != nil || len(idx.Items) != 0 {
				t.Errorf("chunked records in %s: %d, %v", hs.Namespace, len(idx.Items), err)
			}
		})
	}
}

// TestHelmStoreReaders reads the samples of Helm's own drivers the ways a reader
// that does not decode everything would: Secrets by their type, metadata only.
func TestHelmStoreReaders(t *testing.T) {
	c, _ := seed(t)
	ctx := context.Background()

	helmType := metav1.ListOptions{FieldSelector: "type=" + string(HelmSecretType)}
	all, err := c.Clientset().CoreV1().Secrets("").List(ctx, helmType)
	if err != nil {
		t.Fatal(err)
	}
	perNS := map[string]int{}
	for _, s := range all.Items {
		perNS[s.Namespace]++
	}
	if want := map[string]int{WebNamespace: 4, LoggingNamespace: 5}; fmt.Sprint(perNS) != fmt.Sprint(want) {
		t.Errorf("Secrets of type %s per namespace: %v, want %v", HelmSecretType, perNS, want)
	}

	tests := []struct {
		gvr       schema.GroupVersionResource
		ns, sel   string
		fieldSel  string
		wantNames []string
	}{
		{configMapsGVR, IngressNamespace, "owner=helm", "", keys(IngressNginxRelease, 3)},
		{configMapsGVR, IngressNamespace, "owner=helm,status=deployed", "", keys(IngressNginxRelease, 3)[2:]},
		{secretsGVR, WebNamespace, "owner=helm,name=redis", "type=" + string(HelmSecretType), keys(RedisRelease, 4)},
		{secretsGVR, LoggingNamespace, "owner=helm,status=superseded", "", keys(LokiStackRelease, 4)},
		{secretsGVR, "demo", "owner=helm", "type=" + string(HelmSecretType), nil},
	}
	for _, tc := range tests {
		t.Run(tc.gvr.Resource+"/"+tc.ns+"/"+tc.sel, func(t *testing.T) {
			l, err := c.Metadata().Resource(tc.gvr).Namespace(tc.ns).List(ctx, metav1.ListOptions{LabelSelector: tc.sel, FieldSelector: tc.fieldSel})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range l.Items {
				names = append(names, p.Name)
				if p.Labels["owner"] != "helm" || p.UID == "" || p.ResourceVersion == "" {
					t.Errorf("%s: labels %v uid %q rv %q", p.Name, p.Labels, p.UID, p.ResourceVersion)
				}
			}
			if !slices.Equal(names, tc.wantNames) {
				t.Errorf("names %v, want %v", names, tc.wantNames)
			}
		})
	}

	// A ConfigMaps watch sees the records as they are.
	w, err := c.Clientset().CoreV1().ConfigMaps(IngressNamespace).Watch(ctx, metav1.ListOptions{LabelSelector: "owner=helm"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for i := range 3 {
		ev := <-w.ResultChan()
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if !ok || cm.Name != storage.RecordKey(IngressNginxRelease, i+1) || cm.Data[HelmReleaseKey] == "" {
			t.Fatalf("event %d: %s %T", i+1, ev.Type, ev.Object)
		}
	}
}

func keys(name string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, storage.RecordKey(name, i))
	}
	return out
}

// TestLokiStackNearTheLimit: loki-stack's revisions grow steadily and the latest
// is close enough to the Secret size limit for a forecast to see it outgrow it.
func TestLokiStackNearTheLimit(t *testing.T) {
	_, f := seed(t)
	r := mustRelease(t, f, LoggingNamespace, LokiStackRelease)
	var sizes []int64
	for i, rev := range r.Revisions {
		sizes = append(sizes, rev.StoredBytes)
		if i == 0 {
			continue
		}
		if d := rev.StoredBytes - r.Revisions[i-1].StoredBytes; d < 25<<10 || d > 30<<10 {
			t.Errorf("revision %d adds %d bytes, want 25-30 KiB", rev.Revision, d)
		}
	}
	latest := r.Latest().StoredBytes
	share := float64(latest) / MaxSecretBytes
	if share < 0.85 || share > 0.95 {
		t.Errorf("latest stores %d bytes, %.1f%% of %d; want 85-95%%", latest, 100*share, MaxSecretBytes)
	}
	if d := share - LokiStackLatestShare; d < -0.01 || d > 0.01 {
		t.Errorf("latest at %.3f of the limit, LokiStackLatestShare says %.2f", share, LokiStackLatestShare)
	}
	growth := (latest - sizes[0]) / int64(len(sizes)-1)
	if d := growth - LokiStackGrowth; d < -2<<10 || d > 2<<10 {
		t.Errorf("grows %d bytes a revision, LokiStackGrowth says %d", growth, LokiStackGrowth)
	}
	left := (MaxSecretBytes - latest) / growth
	if left < 1 || left > 4 {
		t.Errorf("%d more revisions fit at %d bytes each (sizes %v), want a few", left, growth, sizes)
	}
}
