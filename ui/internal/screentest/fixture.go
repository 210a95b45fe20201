// Package screentest is the test kit of the UI's screens: a fixture of sample
// releases on the demo's in-memory cluster (NewFixture), the shared value over
// it (Common), and a harness that drives one screen as the root would (New):
// keys in, messages and the view out, and golden files.
package screentest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
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
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// Now is the fixed clock of every test: ages and durations in golden files are
// measured against it.
var Now = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

// Main runs the tests of a package that draws screens: masked tokens in golden
// files must not change from run to run, and times show in the local zone,
// which golden files draw in UTC wherever they run.
func Main(m *testing.M) {
	Setup()
	os.Exit(m.Run())
}

// Setup fixes the mask key and the time zone, as Main does, for a package whose
// TestMain does more.
func Setup() {
	revdiff.SetMaskKey([]byte("chunkview ui tests"))
	time.Local = time.UTC
}

// ChunkSize is the slice size the fixture writes with: small, so that
// releases of a few hundred KiB span several chunks and the tests stay fast.
const ChunkSize = 16 << 10

// Config is the client configuration of the tests: records beside their
// releases, owner helm, a write limit of 8 chunks.
func Config() kube.Config {
	return kube.Config{
		Owner:     storage.HelmOwner,
		Namespace: "default",
		// Nothing writes beside the tests, so a missing chunk is broken at once
		// rather than waited for: the fixture's broken records would otherwise
		// cost every screen that reads them the 2 s of the default retry. The
		// TUI itself never sets ReadRetry: it runs on the client Options.Connect
		// builds, whose default kube's TestDefaultReadRetryRidesOutAWrite holds
		// (a DefaultReadRetry of 0 fails it).
		Driver: storage.ChunkedSecretsConfig{ChunkSize: ChunkSize, MaxWriteChunks: 8, ReadRetry: -1},
		// The screens' clock: what the client measures (how long a revision has
		// been pending, in a plan) agrees with what they draw.
		Now: func() time.Time { return Now },
	}
}

// Fixture is a demo cluster holding sample releases, healthy and broken, and a
// client over it.
type Fixture struct {
	t       testing.TB
	Cluster *fakeapi.Cluster
	Client  *kube.Client
}

// NewFixture writes the sample releases:
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
func NewFixture(t testing.TB) *Fixture {
	t.Helper()
	snapshotOnce.Do(func() { snapshot, snapshotErr = buildSnapshot() })
	if snapshotErr != nil {
		t.Fatal(snapshotErr)
	}
	c := fakeapi.NewCluster()
	c.SetClock(func() time.Time { return Now.Add(-time.Hour) })
	if err := restore(c, snapshot); err != nil {
		t.Fatal(err)
	}
	return &Fixture{t: t, Cluster: c, Client: kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, Config())}
}

// T is the test the fixture was made for.
func (f *Fixture) T() testing.TB { return f.t }

// Encoding the samples (gzip at best compression) is the slow part, so it is
// done once; each test gets a fresh cluster restored from the Secrets.
var (
	snapshotOnce sync.Once
	snapshot     []corev1.Secret
	snapshotErr  error
)

// Namespaces are the namespaces the samples live in.
var Namespaces = []string{"default", "shop"}

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
	for _, ns := range Namespaces {
		list, err := f.Cluster.Clientset().CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{})
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
// (a moment ago) back to the fixture cluster's clock, an hour before Now: the
// records of a cluster that has run for a while. A chunk missing from them then
// makes a broken record, not one another writer may still be storing (see
// kube.WritingWindow). Labels a sample set on purpose are left as they are.
func backdate(s *corev1.Secret) {
	at := strconv.FormatInt(Now.Add(-time.Hour).Unix(), 10)
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
func buildFixture(t testing.TB) *Fixture {
	c := fakeapi.NewCluster()
	c.SetClock(func() time.Time { return Now.Add(-time.Hour) })
	if err := c.Add(fakeapi.Namespace("shop")); err != nil {
		t.Fatal(err)
	}
	f := &Fixture{Cluster: c}
	write := func(ns string, rls ...*release.Release) {
		drv := storage.NewDriver(c.Clientset().CoreV1().Secrets(ns), storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: ChunkSize})
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
		web = append(web, WebRelease(v, st))
	}
	write("default", web...)

	write("default",
		SimpleRelease("worker", "default", 1, release.StatusDeployed, 5<<10, Now.Add(-50*time.Hour)),
		SimpleRelease("worker", "default", 2, release.StatusPendingUpgrade, 6<<10, Now.Add(-3*time.Hour)))

	write("default",
		SimpleRelease("legacy", "default", 1, release.StatusSuperseded, 22<<10, Now.Add(-30*24*time.Hour)),
		SimpleRelease("legacy", "default", 2, release.StatusDeployed, 38<<10, Now.Add(-20*24*time.Hour)))
	f.DeleteLastChunk(t, "default", storage.RecordKey("legacy", 2))
	f.AddOrphan(t, "default", storage.RecordKey("legacy", 1))

	write("default", SimpleRelease("old-tool", "default", 1, release.StatusDeployed, 3<<10, Now.Add(-400*24*time.Hour)))
	f.StripAnnotations(t, "default", storage.RecordKey("old-tool", 1), Now.Add(-400*24*time.Hour))

	apiFailed := SimpleRelease("api", "shop", 2, release.StatusFailed, 8<<10, Now.Add(-25*time.Minute))
	apiFailed.Info.Description = `Upgrade "api" failed: context deadline exceeded`
	write("shop", SimpleRelease("api", "shop", 1, release.StatusSuperseded, 7<<10, Now.Add(-6*24*time.Hour)), apiFailed)

	write("shop", SimpleRelease("cache", "shop", 1, release.StatusDeployed, 35<<10, Now.Add(-2*24*time.Hour)))
	f.CorruptChunk(t, "shop", storage.RecordKey("cache", 1))

	f.Client = kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, Config())
	return f
}

// Noise returns n bytes that gzip can hardly shrink, from a fixed seed.
func Noise(seed uint64, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// SimpleRelease is revision v of a release of one ConfigMap holding payload
// bytes that gzip can hardly shrink, deployed at.
func SimpleRelease(name, ns string, v int, st release.Status, payload int, at time.Time) *release.Release {
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
`, name, ns, Noise(uint64(v)*7919+uint64(len(name)), payload*4/3))
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

// WebRelease is revision v of the richest sample: a Deployment, a Service, a
// Secret, a growing ConfigMap, a hook and notes; user values with a password.
func WebRelease(v int, st release.Status) *release.Release {
	at := Now.Add(-time.Duration(5-v) * 24 * time.Hour)
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
`, Noise(uint64(v), (8+18*v)<<10*4/3))
	return &release.Release{
		Name: "web", Namespace: "default", Version: v, Manifest: m.String(),
		Info: &release.Info{
			FirstDeployed: helmtime.Time{Time: Now.Add(-4 * 24 * time.Hour)}, LastDeployed: ts, Status: st,
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

// ChunkNames returns the chunk Secret names an index lists.
func (f *Fixture) ChunkNames(t testing.TB, ns, key string) []string {
	t.Helper()
	idx, err := f.Cluster.Clientset().CoreV1().Secrets(ns).Get(context.Background(), key, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names, err := storage.ParseExtraChunks(key, idx.Data[storage.DataExtraChunks])
	if err != nil || len(names) == 0 {
		t.Fatalf("%s has no chunks to break (%v)", key, err)
	}
	return names
}

// DeleteLastChunk deletes the last chunk Secret the index of key names.
func (f *Fixture) DeleteLastChunk(t testing.TB, ns, key string) {
	t.Helper()
	names := f.ChunkNames(t, ns, key)
	if err := f.Cluster.Clientset().CoreV1().Secrets(ns).Delete(context.Background(), names[len(names)-1], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// CorruptChunk replaces the first chunk of key with one whose bytes differ from
// the hash in its name.
func (f *Fixture) CorruptChunk(t testing.TB, ns, key string) {
	t.Helper()
	cs := f.Cluster.Clientset().CoreV1().Secrets(ns)
	name := f.ChunkNames(t, ns, key)[0]
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

// AddOrphan creates a chunk Secret of key that its index does not name.
func (f *Fixture) AddOrphan(t testing.TB, ns, key string) {
	t.Helper()
	data := []byte("left over by an interrupted write")
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: storage.ChunkName(key, data),
			Labels: map[string]string{
				storage.LabelOwner: storage.HelmOwner, storage.LabelKey: key, storage.LabelType: storage.TypeChunk,
				storage.LabelCreatedAt: strconv.FormatInt(Now.Add(-time.Hour).Unix(), 10),
			},
		},
		Type: storage.SecretTypeChunk,
		Data: map[string][]byte{storage.DataChunk: data},
	}
	if _, err := f.Cluster.Clientset().CoreV1().Secrets(ns).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// StripAnnotations makes a record look written by another implementation: no
// chunkview summary, and a fixed creation label.
func (f *Fixture) StripAnnotations(t testing.TB, ns, key string, created time.Time) {
	t.Helper()
	cs := f.Cluster.Clientset().CoreV1().Secrets(ns)
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

// MoveWeb is another writer storing revision 5 of web behind the screens' back.
func (f *Fixture) MoveWeb(t testing.TB) {
	t.Helper()
	d := storage.NewDriver(f.Cluster.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: ChunkSize})
	if err := d.Create(storage.RecordKey("web", 5), WebRelease(5, release.StatusDeployed)); err != nil {
		t.Fatal(err)
	}
}

// ReadOnly is a client over the fixture's cluster that refuses every write
// (--read-only).
func (f *Fixture) ReadOnly() *kube.Client {
	cfg := Config()
	cfg.ReadOnly = true
	return kube.New(f.Cluster.Clientset(), f.Cluster.Metadata(), demo.DiscardKubeClients, cfg)
}

// AllowSecrets returns an authorizer that allows the given verbs on secrets in
// namespace ns and nothing else, as a Role bound in that namespace would.
func AllowSecrets(ns string, verbs ...string) fakeapi.Authorizer {
	return func(gotNS, verb, resource string) (bool, string) {
		if resource == "secrets" && gotNS == ns && slices.Contains(verbs, verb) {
			return true, ""
		}
		return false, ""
	}
}

// DemoClient seeds the demo's samples on a cluster of its own and returns it with
// a client over every namespace and store, its config adjusted by adjust.
func DemoClient(t *testing.T, adjust func(*kube.Config)) (*fakeapi.Cluster, *kube.Client) {
	t.Helper()
	c := fakeapi.NewCluster()
	if _, err := demo.Seed(t.Context(), c, demo.SeedOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := Config()
	cfg.AllNamespaces, cfg.Namespace = true, ""
	cfg.Drivers = kube.AllDrivers
	if adjust != nil {
		adjust(&cfg)
	}
	return c, kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, cfg)
}

// DemoLive is the demo's cluster as --demo builds it, live objects included
// (the stuck rollout's crashing Pods and their logs, the failed migration
// hook's), with only the samples named, on the tests' clock.
func DemoLive(t testing.TB, only ...string) *kube.Client {
	t.Helper()
	c := fakeapi.NewCluster()
	if _, err := demo.Seed(t.Context(), c, demo.SeedOptions{Only: only, Now: Now}); err != nil {
		t.Fatal(err)
	}
	cfg := Config()
	cfg.AllNamespaces, cfg.Namespace, cfg.Demo = true, "", true
	cfg.Drivers = kube.AllDrivers
	return kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, cfg).
		WithLive(c.Dynamic(), func() (*kube.LiveClients, error) {
			return kube.NewLiveClients(c.Dynamic(), c.Metadata(), c.Clientset().Discovery()), nil
		})
}
