package adoption_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	helmclient "github.com/operator-framework/helm-operator-plugins/pkg/client"

	"github.com/chunkview/chunkview/internal/adoption"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

var cluster *testcluster.Cluster

// TestMain starts the cluster and serves OLMv1's ClusterExtension on it once, for
// every test (a CRD removed and installed again takes a while to be served).
func TestMain(m *testing.M) {
	c, err := testcluster.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cluster = c
	opts := envtest.CRDInstallOptions{CRDs: testcluster.OLMv1CRDs(false), MaxTime: time.Minute, PollInterval: 100 * time.Millisecond}
	code := 1
	if _, err := envtest.InstallCRDs(c.Config, opts); err != nil {
		fmt.Fprintln(os.Stderr, "install OLMv1's CRDs:", err)
	} else {
		code = m.Run()
	}
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop envtest:", err)
	}
	os.Exit(code)
}

// testConfig is OLMv1's driver configuration with a small chunk size, so that the
// test's small chart stores in several chunks and every read fetches some.
var testConfig = storage.ChunkedSecretsConfig{ChunkSize: 4 << 10, MaxReadChunks: adoption.MaxChunks, MaxWriteChunks: adoption.MaxChunks}

// env is an operator's wiring on the test cluster: one connection whose requests
// are counted, the typed clients and the live reader over it, and the namespaces
// of the release records (system) and of the installed objects (install).
type env struct {
	t       *testing.T
	cfg     *rest.Config
	stats   *kube.Stats
	cs      kubernetes.Interface
	dyn     dynamic.Interface
	live    client.Reader
	rm      meta.RESTMapper
	system  string
	install string
	steps   []stepCount
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, cfg: rest.CopyConfig(cluster.Config), stats: &kube.Stats{}, system: cluster.Namespace(t), install: cluster.Namespace(t)}
	e.stats.Count(e.cfg)
	var err error
	if e.cs, err = kubernetes.NewForConfig(e.cfg); err != nil {
		t.Fatal(err)
	}
	if e.dyn, err = dynamic.NewForConfig(e.cfg); err != nil {
		t.Fatal(err)
	}
	// The manager's API reader: a client that reads live.
	if e.live, err = client.New(e.cfg, client.Options{}); err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if e.rm, err = apiutil.NewDynamicRESTMapper(e.cfg, hc); err != nil {
		t.Fatal(err)
	}
	return e
}

// extension creates a ClusterExtension named name and returns it as the server
// has it (with its UID), as a controller is handed the object it reconciles.
func (e *env) extension(name string) *unstructured.Unstructured {
	e.t.Helper()
	gvr := testcluster.ClusterExtensions
	u, err := e.dyn.Resource(gvr).Create(e.t.Context(), adoption.ClusterExtension(name, e.install), metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("create ClusterExtension %s: %v", name, err)
	}
	return u
}

// getter is helm-operator-plugins' ActionClientGetter wired as OLMv1 wires it: the
// driver newDriver builds over Secrets read through reader, objects installed into
// the install namespace, no rollback on failure.
func (e *env) getter(newDriver adoption.NewDriver, reader client.Reader) helmclient.ActionClientGetter {
	e.t.Helper()
	secrets := adoption.Secrets(reader, e.cs.CoreV1(), e.system)
	acg, err := helmclient.NewActionConfigGetter(e.cfg, e.rm,
		helmclient.StorageDriverMapper(adoption.DriverMapper(secrets, newDriver)),
		helmclient.ClientNamespaceMapper(func(client.Object) (string, error) { return e.install, nil }),
	)
	if err != nil {
		e.t.Fatal(err)
	}
	g, err := helmclient.NewActionClientGetter(acg, helmclient.WithFailureRollbacks(false))
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

// stepCount is the requests one step sent.
type stepCount struct {
	name                     string
	secrets, all, secretWrts int
}

// step runs f and records the requests it sent on the env's connection: those on
// Secrets, those of them that write, and all of them.
func (e *env) step(name string, f func()) stepCount {
	e.t.Helper()
	before := len(e.stats.Calls())
	f()
	var c stepCount
	c.name = name
	for _, call := range e.stats.Calls()[before:] {
		c.all++
		if strings.Contains(call, "/secrets") {
			c.secrets++
			if !strings.HasPrefix(call, "GET ") {
				c.secretWrts++
			}
		}
	}
	e.steps = append(e.steps, c)
	return c
}

// logSteps logs the requests of each step, for the reader of a -v run.
func (e *env) logSteps() {
	var b strings.Builder
	fmt.Fprintf(&b, "%-66s %8s %8s %8s\n", "step", "secrets", "writes", "all")
	for _, s := range e.steps {
		fmt.Fprintf(&b, "%-66s %8d %8d %8d\n", s.name, s.secrets, s.secretWrts, s.all)
	}
	e.t.Log("requests of each step:\n" + b.String())
}

// records reads release name's records with a driver of newDriver over a plain
// Secret client, newest first.
func (e *env) records(newDriver adoption.NewDriver, name string) ([]*release.Release, error) {
	d := newDriver(e.cs.CoreV1().Secrets(e.system))
	rs, err := d.Query(map[string]string{"name": name, "owner": adoption.Owner})
	slices.SortFunc(rs, func(a, b *release.Release) int { return b.Version - a.Version })
	return rs, err
}

// sameRecords asserts that chunkview's driver and helm-operator-plugins' read the
// same records of release name, and that there are want of them; it returns them,
// newest first.
func (e *env) sameRecords(name string, want int) []*release.Release {
	e.t.Helper()
	cv, err := e.records(adoption.Chunkview(adoption.Owner, testConfig), name)
	if err != nil {
		e.t.Fatalf("chunkview reads %s: %v", name, err)
	}
	orig, err := e.records(adoption.Original(adoption.Owner, testConfig), name)
	if err != nil {
		e.t.Fatalf("helm-operator-plugins' driver reads %s: %v", name, err)
	}
	if len(cv) != want || len(orig) != want {
		e.t.Fatalf("%s: chunkview reads %d records and helm-operator-plugins %d, want %d", name, len(cv), len(orig), want)
	}
	for i := range cv {
		if a, b := releaseJSON(e.t, cv[i]), releaseJSON(e.t, orig[i]); a != b {
			e.t.Fatalf("%s revision %d: the drivers read different releases:\nchunkview:             %.300s\nhelm-operator-plugins: %.300s", name, cv[i].Version, a, b)
		}
	}
	return cv
}

// releaseJSON is rls as JSON, without its labels (the drivers agree on custom
// labels, but one returns an empty map where the other returns none).
func releaseJSON(t *testing.T, rls *release.Release) string {
	t.Helper()
	c := *rls
	c.Labels = nil
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noRecords asserts that neither driver finds release name.
func (e *env) noRecords(name string) {
	e.t.Helper()
	for _, nd := range []adoption.NewDriver{adoption.Chunkview(adoption.Owner, testConfig), adoption.Original(adoption.Owner, testConfig)} {
		if rs, err := e.records(nd, name); !errors.Is(err, driver.ErrReleaseNotFound) {
			e.t.Fatalf("%s after uninstall: %d records, err %v; want %v", name, len(rs), err, driver.ErrReleaseNotFound)
		}
	}
}

// ownedIndexes asserts that every index Secret of release name carries ext's
// controller reference, and returns how many there are.
func (e *env) ownedIndexes(ext *unstructured.Unstructured) int {
	e.t.Helper()
	l, err := e.cs.CoreV1().Secrets(e.system).List(e.t.Context(), metav1.ListOptions{LabelSelector: "name=" + ext.GetName() + ",owner=" + adoption.Owner})
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, s := range l.Items {
		if s.Type != storage.SecretTypeIndex {
			continue
		}
		n++
		ref := metav1.GetControllerOfNoCopy(&s)
		if ref == nil || ref.UID != ext.GetUID() || ref.Kind != "ClusterExtension" {
			e.t.Errorf("index Secret %s: controller %+v, want the ClusterExtension %s (%s)", s.Name, ref, ext.GetName(), ext.GetUID())
		}
	}
	return n
}

// configMap returns the test chart's ConfigMap of release name, or nil when absent.
func (e *env) configMap(name string) *corev1.ConfigMap {
	e.t.Helper()
	cm, err := e.cs.CoreV1().ConfigMaps(e.install).Get(e.t.Context(), name+"-settings", metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return cm
}

// testChart is a small chart of two ConfigMaps: one holding a value, the other
// about 6 KB of text that compresses poorly, so that each release stores in a few
// chunks of testConfig's size.
func testChart() *chart.Chart {
	r := rand.New(rand.NewPCG(28, 6))
	blob := make([]byte, 4500)
	for i := range blob {
		blob[i] = byte(r.Uint32())
	}
	settings := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  color: {{ .Values.color | quote }}
`
	payload := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-payload
data:
  blob: "` + base64.StdEncoding.EncodeToString(blob) + `"
`
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "adoption", Version: "0.1.0"},
		Values:   map[string]interface{}{"color": "blue"},
		Templates: []*chart.File{
			{Name: "templates/settings.yaml", Data: []byte(settings)},
			{Name: "templates/payload.yaml", Data: []byte(payload)},
		},
	}
}

// chunksOf is how many chunks rls's record stores in.
func chunksOf(t *testing.T, e *env, rls *release.Release) int {
	t.Helper()
	key := storage.RecordKey(rls.Name, rls.Version)
	idx, err := e.cs.CoreV1().Secrets(e.system).Get(t.Context(), key, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names, err := storage.ParseExtraChunks(key, idx.Data[storage.DataExtraChunks])
	if err != nil {
		t.Fatal(err)
	}
	return 1 + len(names)
}

// ownerSelector selects every Secret of OLMv1's owner, index or chunk.
func ownerSelector() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: storage.LabelOwner + "=" + adoption.Owner}
}
