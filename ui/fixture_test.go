package ui

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// testNow is the fixed clock of every test: ages and durations in golden files
// are measured against it.
var testNow = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

// cluster is the real API server and etcd of the program tests that run against
// one (program_real_test.go); the other tests use the demo's in-memory cluster.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	// Masked tokens in golden files must not change from run to run.
	revdiff.SetMaskKey([]byte("chunkview ui tests"))
	// Times show in the local zone: golden files are drawn in UTC wherever
	// they run.
	time.Local = time.UTC
	testcluster.Main(m, &cluster, &kubetest.Cluster)
}

// fixtureChunkSize is the slice size the fixture writes with: small, so that
// releases of a few hundred KiB span several chunks and the tests stay fast.
const fixtureChunkSize = 16 << 10

// testConfig is the client configuration of the tests: records beside their
// releases, owner helm, a write limit of 8 chunks.
func testConfig() kube.Config {
	return kube.Config{
		Owner:     storage.HelmOwner,
		Namespace: "default",
		// Nothing writes beside the tests, so a missing chunk is broken at once
		// rather than waited for: the fixture's broken records would otherwise
		// cost every screen that reads them the 2 s of the default retry. The
		// TUI itself never sets ReadRetry: it runs on the client Options.Connect
		// builds, whose default kube's TestDefaultReadRetryRidesOutAWrite holds
		// (a DefaultReadRetry of 0 fails it).
		Driver: storage.ChunkedSecretsConfig{ChunkSize: fixtureChunkSize, MaxWriteChunks: 8, ReadRetry: -1},
		// The screens' clock: what the client measures (how long a revision has
		// been pending, in a plan) agrees with what they draw.
		Now: func() time.Time { return testNow },
	}
}

// fixture is a demo cluster holding sample releases, healthy and broken, and a
// client over it.
type fixture struct {
	t       testing.TB
	cluster *fakeapi.Cluster
	client  *kube.Client
}

// newFixture writes the sample releases:
//
//	default/web      4 revisions, growing ~18 KiB each, 2..5 chunks, with a Secret,
//	                 a hook and notes; revision 4 adds a ConfigMap
//	default/worker   revision 2 stuck in pending-upgrade for 3h
//	default/legacy   revision 2's last chunk deleted (missing); an orphan chunk
//	                 beside revision 1
//	default/old-tool written without chunkview's annotations, so the list has to
//	                 decode it
//	shop/api         revision 2 failed
//	shop/cache       a chunk whose bytes do not match its name (corrupt)
func newFixture(t testing.TB) *fixture {
	t.Helper()
	snapshotOnce.Do(func() { snapshot, snapshotErr = buildSnapshot() })
	if snapshotErr != nil {
		t.Fatal(snapshotErr)
	}
	c := fakeapi.NewCluster()
	c.SetClock(func() time.Time { return testNow.Add(-time.Hour) })
	if err := restore(c, snapshot); err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, cluster: c, client: kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, testConfig())}
}

// Encoding the samples (gzip at best compression) is the slow part, so it is
// done once; each test gets a fresh cluster restored from the Secrets.
var (
	snapshotOnce sync.Once
	snapshot     []corev1.Secret
	snapshotErr  error
)

// fixtureNamespaces are the namespaces the samples live in.
var fixtureNamespaces = []string{"default", "shop"}

func buildSnapshot() (out []corev1.Secret, err error) {
	t := &fatalRecorder{}
	defer func() {
		if r := recover(); r != nil {
			if r != errFixture {
				panic(r)
			}
			err = t.err
		}
	}()
	f := buildFixture(t)
	for _, ns := range fixtureNamespaces {
		list, err := f.cluster.Clientset().CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		out = append(out, list.Items...)
	}
	return out, nil
}

// restore writes the snapshot's Secrets onto c: indexes first, so that the
// chunks' ownerReferences can point at the indexes' new UIDs.
func restore(c *fakeapi.Cluster, secrets []corev1.Secret) error {
	if err := c.Add(fakeapi.Namespace("shop")); err != nil {
		return err
	}
	uids := map[types.UID]types.UID{}
	for pass := 0; pass < 2; pass++ {
		for i := range secrets {
			s := secrets[i].DeepCopy()
			isIndex := s.Type == storage.SecretTypeIndex
			if isIndex != (pass == 0) {
				continue
			}
			old := s.UID
			s.UID, s.ResourceVersion, s.CreationTimestamp = "", "", metav1.Time{}
			backdate(s)
			for j := range s.OwnerReferences {
				s.OwnerReferences[j].UID = uids[s.OwnerReferences[j].UID]
			}
			if err := c.Add(s); err != nil {
				return err
			}
			if isIndex {
				got, err := c.Clientset().CoreV1().Secrets(s.Namespace).Get(context.Background(), s.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				uids[old] = got.UID
			}
		}
	}
	c.ResetRequests()
	return nil
}

// backdate dates the write labels the driver put on s when the snapshot was built
// (a moment ago) back to the fixture cluster's clock, an hour before testNow: the
// records of a cluster that has run for a while. A chunk missing from them then
// makes a broken record, not one another writer may still be storing (see
// kube.WritingWindow). Labels a sample set on purpose are left as they are.
func backdate(s *corev1.Secret) {
	at := strconv.FormatInt(testNow.Add(-time.Hour).Unix(), 10)
	for _, l := range []string{storage.LabelCreatedAt, storage.LabelModifiedAt} {
		if sec, err := strconv.ParseInt(s.Labels[l], 10, 64); err == nil && time.Since(time.Unix(sec, 0)) < 24*time.Hour {
			s.Labels[l] = at
		}
	}
}

var errFixture = errors.New("fixture failed")

// fatalRecorder is the testing.TB the one-off fixture build runs under, outside
// any test.
type fatalRecorder struct {
	testing.TB
	err error
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatal(args ...any) {
	r.err = fmt.Errorf("%s", fmt.Sprint(args...))
	panic(errFixture)
}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.err = fmt.Errorf(format, args...)
	panic(errFixture)
}

// buildFixture writes the samples through the chunked driver.
func buildFixture(t testing.TB) *fixture {
	c := fakeapi.NewCluster()
	c.SetClock(func() time.Time { return testNow.Add(-time.Hour) })
	if err := c.Add(fakeapi.Namespace("shop")); err != nil {
		t.Fatal(err)
	}
	f := &fixture{cluster: c}
	write := func(ns string, rls ...*release.Release) {
		drv := storage.NewDriver(c.Clientset().CoreV1().Secrets(ns), storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: fixtureChunkSize})
		for _, r := range rls {
			if err := drv.Create(storage.RecordKey(r.Name, r.Version), r); err != nil {
				t.Fatalf("write %s v%d: %v", r.Name, r.Version, err)
			}
		}
	}
	var web []*release.Release
	for v := 1; v <= 4; v++ {
		st := release.StatusSuperseded
		if v == 4 {
			st = release.StatusDeployed
		}
		web = append(web, webRelease(v, st))
	}
	write("default", web...)

	write("default",
		simpleRelease("worker", "default", 1, release.StatusDeployed, 5<<10, testNow.Add(-50*time.Hour)),
		simpleRelease("worker", "default", 2, release.StatusPendingUpgrade, 6<<10, testNow.Add(-3*time.Hour)))

	write("default",
		simpleRelease("legacy", "default", 1, release.StatusSuperseded, 22<<10, testNow.Add(-30*24*time.Hour)),
		simpleRelease("legacy", "default", 2, release.StatusDeployed, 38<<10, testNow.Add(-20*24*time.Hour)))
	f.deleteLastChunk(t, "default", storage.RecordKey("legacy", 2))
	f.addOrphan(t, "default", storage.RecordKey("legacy", 1))

	write("default", simpleRelease("old-tool", "default", 1, release.StatusDeployed, 3<<10, testNow.Add(-400*24*time.Hour)))
	f.stripAnnotations(t, "default", storage.RecordKey("old-tool", 1), testNow.Add(-400*24*time.Hour))

	apiFailed := simpleRelease("api", "shop", 2, release.StatusFailed, 8<<10, testNow.Add(-25*time.Minute))
	apiFailed.Info.Description = `Upgrade "api" failed: context deadline exceeded`
	write("shop", simpleRelease("api", "shop", 1, release.StatusSuperseded, 7<<10, testNow.Add(-6*24*time.Hour)), apiFailed)

	write("shop", simpleRelease("cache", "shop", 1, release.StatusDeployed, 35<<10, testNow.Add(-2*24*time.Hour)))
	f.corruptChunk(t, "shop", storage.RecordKey("cache", 1))

	f.client = kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, testConfig())
	return f
}

// noise returns n bytes that gzip can hardly shrink, from a fixed seed.
func noise(seed uint64, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func simpleRelease(name, ns string, v int, st release.Status, payload int, at time.Time) *release.Release {
	ts := helmtime.Time{Time: at}
	manifest := fmt.Sprintf(`---
# Source: %[1]s/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-data
  namespace: %[2]s
data:
  blob: %[3]s
`, name, ns, noise(uint64(v)*7919+uint64(len(name)), payload*4/3))
	desc := "Install complete"
	if v > 1 {
		desc = "Upgrade complete"
	}
	if st == release.StatusPendingUpgrade {
		desc = "Preparing upgrade"
	}
	return &release.Release{
		Name: name, Namespace: ns, Version: v, Manifest: manifest,
		Info: &release.Info{FirstDeployed: ts, LastDeployed: ts, Status: st, Description: desc},
		Chart: &chart.Chart{Metadata: &chart.Metadata{Name: name, Version: "0.1." + strconv.Itoa(v), AppVersion: "1.0", APIVersion: "v2"},
			Values: map[string]interface{}{"replicas": 1}},
		Config: map[string]interface{}{"replicas": v},
	}
}

// webRelease is revision v of the richest sample: a Deployment, a Service, a
// Secret, a growing ConfigMap, a hook and notes; user values with a password.
func webRelease(v int, st release.Status) *release.Release {
	at := testNow.Add(-time.Duration(5-v) * 24 * time.Hour)
	ts := helmtime.Time{Time: at}
	password := fmt.Sprintf("hunter2-rev%d-very-secret", v)
	var m strings.Builder
	fmt.Fprintf(&m, `---
# Source: web/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: web-db
  namespace: default
type: Opaque
data:
  password: %s
---
# Source: web/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  ports:
  - port: 80
    targetPort: 8080
---
# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: %d
  template:
    spec:
      containers:
      - name: web
        image: example.com/web:1.%d.0
`, base64.StdEncoding.EncodeToString([]byte(password)), 1+v/2, v)
	if v >= 4 {
		m.WriteString(`---
# Source: web/templates/flags.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-flags
  namespace: default
data:
  newCheckout: "true"
`)
	}
	fmt.Fprintf(&m, `---
# Source: web/templates/assets.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-assets
  namespace: default
data:
  bundle: %s
`, noise(uint64(v), (8+18*v)<<10*4/3))
	return &release.Release{
		Name: "web", Namespace: "default", Version: v, Manifest: m.String(),
		Info: &release.Info{
			FirstDeployed: helmtime.Time{Time: testNow.Add(-4 * 24 * time.Hour)}, LastDeployed: ts, Status: st,
			Description: map[bool]string{true: "Install complete", false: "Upgrade complete"}[v == 1],
			Notes:       "web is running.\nVisit http://web.default.svc to see it.\n",
		},
		Chart: &chart.Chart{
			Metadata: &chart.Metadata{Name: "web", Version: fmt.Sprintf("1.%d.0", v), AppVersion: fmt.Sprintf("1.%d", v), APIVersion: "v2"},
			Values:   map[string]interface{}{"replicas": 1, "image": map[string]interface{}{"tag": "latest"}},
		},
		Config: map[string]interface{}{
			"replicas": 1 + v/2,
			"image":    map[string]interface{}{"tag": fmt.Sprintf("1.%d.0", v)},
			"db":       map[string]interface{}{"host": "db.default.svc", "password": password},
		},
		Hooks: []*release.Hook{{
			Name: "web-migrate", Kind: "Job", Path: "web/templates/migrate.yaml",
			Manifest: "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: web-migrate\nspec:\n  template:\n    spec:\n      containers:\n      - name: migrate\n        image: example.com/web-migrate:1." + strconv.Itoa(v) + ".0\n",
			Events:   []release.HookEvent{release.HookPreUpgrade, release.HookPreInstall},
		}},
		Labels: map[string]string{"team": "storefront"},
	}
}

// chunkNames returns the chunk Secret names an index lists.
func (f *fixture) chunkNames(t testing.TB, ns, key string) []string {
	t.Helper()
	idx, err := f.cluster.Clientset().CoreV1().Secrets(ns).Get(context.Background(), key, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names, err := storage.ParseExtraChunks(key, idx.Data[storage.DataExtraChunks])
	if err != nil || len(names) == 0 {
		t.Fatalf("%s has no chunks to break (%v)", key, err)
	}
	return names
}

func (f *fixture) deleteLastChunk(t testing.TB, ns, key string) {
	t.Helper()
	names := f.chunkNames(t, ns, key)
	if err := f.cluster.Clientset().CoreV1().Secrets(ns).Delete(context.Background(), names[len(names)-1], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// corruptChunk replaces the first chunk of key with one whose bytes differ from
// the hash in its name.
func (f *fixture) corruptChunk(t testing.TB, ns, key string) {
	t.Helper()
	cs := f.cluster.Clientset().CoreV1().Secrets(ns)
	name := f.chunkNames(t, ns, key)[0]
	s, err := cs.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	data := append([]byte(nil), s.Data[storage.DataChunk]...)
	data[len(data)/2] ^= 0xff
	s.Data[storage.DataChunk] = data
	s.ResourceVersion, s.UID = "", ""
	if _, err := cs.Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// addOrphan creates a chunk Secret of key that its index does not name.
func (f *fixture) addOrphan(t testing.TB, ns, key string) {
	t.Helper()
	data := []byte("left over by an interrupted write")
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: storage.ChunkName(key, data),
			Labels: map[string]string{
				storage.LabelOwner: storage.HelmOwner, storage.LabelKey: key, storage.LabelType: storage.TypeChunk,
				storage.LabelCreatedAt: strconv.FormatInt(testNow.Add(-time.Hour).Unix(), 10),
			},
		},
		Type: storage.SecretTypeChunk,
		Data: map[string][]byte{storage.DataChunk: data},
	}
	if _, err := f.cluster.Clientset().CoreV1().Secrets(ns).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// stripAnnotations makes a record look written by another implementation: no
// chunkview summary, and a fixed creation label.
func (f *fixture) stripAnnotations(t testing.TB, ns, key string, created time.Time) {
	t.Helper()
	cs := f.cluster.Clientset().CoreV1().Secrets(ns)
	s, err := cs.Get(context.Background(), key, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Annotations = nil
	s.Labels[storage.LabelCreatedAt] = strconv.FormatInt(created.Unix(), 10)
	if _, err := cs.Update(context.Background(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// demoClient seeds the demo's samples on a cluster of its own and returns it with
// a client over every namespace and store, its config adjusted by adjust.
func demoClient(t *testing.T, adjust func(*kube.Config)) (*fakeapi.Cluster, *kube.Client) {
	t.Helper()
	c := fakeapi.NewCluster()
	if _, err := demo.Seed(t.Context(), c, demo.SeedOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.AllNamespaces, cfg.Namespace = true, ""
	cfg.Drivers = kube.AllDrivers
	if adjust != nil {
		adjust(&cfg)
	}
	return c, kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, cfg)
}
