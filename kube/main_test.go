package kube_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// cluster is the real API server and etcd every test in this package runs against.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) { testcluster.Main(m, &cluster) }

// ---- kubeconfig and connections ------------------------------------------------

// writeKubeconfig writes a kubeconfig for cfg into a temporary folder and returns its
// path. namespace, when set, becomes the context's namespace.
func writeKubeconfig(t *testing.T, cfg *rest.Config, namespace string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
		Token:                 cfg.BearerToken,
	}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "user", Namespace: namespace}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatalf("write kubeconfig: %v", err)
	}
	return path
}

// adminKubeconfig is writeKubeconfig for the test cluster's admin.
func adminKubeconfig(t *testing.T, namespace string) string {
	return writeKubeconfig(t, cluster.Config, namespace)
}

// connect builds a Client the way chunkview's main does: kubectl-style flags parsed
// from args, then Options.Connect. setup, when set, adjusts the options after the
// flags are parsed (Stats, WrapConfig).
func connect(t *testing.T, kubeconfig string, args []string, setup func(*kube.Options)) *kube.Client {
	t.Helper()
	c, err := tryConnect(t, kubeconfig, args, setup)
	if err != nil {
		t.Fatalf("connect %v: %v", args, err)
	}
	return c
}

func tryConnect(t *testing.T, kubeconfig string, args []string, setup func(*kube.Options)) (*kube.Client, error) {
	t.Helper()
	o := parseOptions(t, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", t.TempDir()}, args...))
	if setup != nil {
		setup(o)
	}
	return o.Connect()
}

func parseOptions(t *testing.T, args []string) *kube.Options {
	t.Helper()
	o := kube.NewOptions()
	fs := pflag.NewFlagSet("chunkview", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse flags %v: %v", args, err)
	}
	return o
}

// wireRequest is one request as it left for the server.
type wireRequest struct {
	Method, Path, Query, Accept string
}

func (r wireRequest) String() string { return r.Method + " " + r.Path + "?" + r.Query }

// wireLog records every request right above the connection: it is put in place by
// Options.WrapConfig, the innermost wrapper, so it sees exactly what the server sees.
type wireLog struct {
	mu   sync.Mutex
	reqs []wireRequest
	// wireBytes counts bytes read from the TCP connections (TLS and compression
	// included): what really crossed the network.
	wireBytes atomic.Int64
}

// install wraps rc so that every request is recorded and every connection's bytes
// counted.
func (w *wireLog) install(rc *rest.Config) {
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &wireRT{next: rt, w: w} })
	d := &net.Dialer{Timeout: 10 * time.Second}
	rc.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, n: &w.wireBytes}, nil
	}
}

func (w *wireLog) Requests() []wireRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.reqs)
}

func (w *wireLog) Reset() {
	w.mu.Lock()
	w.reqs = nil
	w.mu.Unlock()
	w.wireBytes.Store(0)
}

// Mutating returns the requests that could change the cluster.
func (w *wireLog) Mutating() []wireRequest {
	var out []wireRequest
	for _, r := range w.Requests() {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			out = append(out, r)
		}
	}
	return out
}

type wireRT struct {
	next http.RoundTripper
	w    *wireLog
}

func (t *wireRT) RoundTrip(req *http.Request) (*http.Response, error) {
	t.w.mu.Lock()
	t.w.reqs = append(t.w.reqs, wireRequest{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Accept: req.Header.Get("Accept")})
	t.w.mu.Unlock()
	return t.next.RoundTrip(req)
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// ---- releases ------------------------------------------------------------------

// noise returns n characters that gzip cannot shrink much, the same for the same
// seed.
func noise(seed string, n int) string {
	h := fnv.New64a()
	h.Write([]byte(seed))
	s := h.Sum64()
	r := rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// baseTime is when the releases the tests make were deployed: fixed, so that the
// encoded payloads, and so the chunk names, are the same on every run.
var baseTime = time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)

// makeRelease returns a realistic release: chart metadata, user-supplied values with
// a database password, and a manifest of ConfigMaps and a Secret. blob adds a
// ConfigMap of that many poorly compressible characters, to make the release span
// several chunks.
func makeRelease(name, namespace string, rev int, status release.Status, blob int) *release.Release {
	password := fmt.Sprintf("hunter2-%s-rev%d", name, rev)
	values := map[string]interface{}{
		"replicaCount": float64(rev),
		"image":        map[string]interface{}{"repository": "ghcr.io/example/webapp", "tag": fmt.Sprintf("v2.%d.0", rev)},
		"db":           map[string]interface{}{"user": "app", "password": password},
	}
	manifest := fmt.Sprintf(`---
# Source: webapp/templates/config.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-config
  namespace: %[2]s
data:
  replicas: "%[3]d"
  color: %[4]s
---
# Source: webapp/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: %[1]s-db
  namespace: %[2]s
type: Opaque
stringData:
  user: app
  password: %[5]s
`, name, namespace, rev, []string{"blue", "green", "red", "amber"}[rev%4], password)
	if rev%2 == 0 {
		manifest += fmt.Sprintf("---\n# Source: webapp/templates/extra.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-extra\n  namespace: %s\ndata:\n  enabled: \"true\"\n", name, namespace)
	}
	if blob > 0 {
		manifest += fmt.Sprintf("---\n# Source: webapp/templates/blob.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-blob\n  namespace: %s\ndata:\n  blob: %s\n", name, namespace, noise(fmt.Sprintf("%s/%s/%d", namespace, name, rev), blob))
	}
	ts := helmtime.Time{Time: baseTime.Add(time.Duration(rev) * time.Hour)}
	desc := "Install complete"
	if rev > 1 {
		desc = "Upgrade complete"
	}
	return &release.Release{
		Name:      name,
		Namespace: namespace,
		Version:   rev,
		Manifest:  manifest,
		Config:    values,
		Info: &release.Info{
			FirstDeployed: helmtime.Time{Time: baseTime.Add(time.Hour)},
			LastDeployed:  ts,
			Status:        status,
			Description:   desc,
			Notes:         "Visit http://" + name + ".example.com",
		},
		Chart: &chart.Chart{
			Metadata: &chart.Metadata{Name: "webapp", Version: fmt.Sprintf("1.%d.0", rev), AppVersion: fmt.Sprintf("2.%d", rev), APIVersion: "v2"},
			Templates: []*chart.File{
				{Name: "templates/config.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\n")},
			},
			Values: map[string]interface{}{"replicaCount": float64(1), "db": map[string]interface{}{"user": "app", "password": "changeme"}},
		},
		Labels: map[string]string{"team": "payments"},
	}
}

// history returns revisions 1..n of a release: the last deployed, the rest
// superseded.
func history(name, namespace string, n, blob int) []*release.Release {
	out := make([]*release.Release, 0, n)
	for rev := 1; rev <= n; rev++ {
		st := release.StatusSuperseded
		if rev == n {
			st = release.StatusDeployed
		}
		out = append(out, makeRelease(name, namespace, rev, st, blob))
	}
	return out
}

// ---- drivers and seeding -------------------------------------------------------

func secrets(ns string) corev1client.SecretInterface { return cluster.Client.CoreV1().Secrets(ns) }

// chunkviewDriver is chunkview's driver over namespace ns.
func chunkviewDriver(ns, owner string, chunkSize int) driver.Driver {
	return storage.NewChunkedSecrets(secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
}

// originalDriver is helm-operator-plugins' driver, the one OLMv1 runs, over
// namespace ns.
func originalDriver(ns, owner string, chunkSize int) driver.Driver {
	return hopstorage.NewChunkedSecrets(secrets(ns), owner, hopstorage.ChunkedSecretsConfig{ChunkSize: chunkSize})
}

// seed stores every release through d, a few at a time.
func seed(t *testing.T, d driver.Driver, rels ...*release.Release) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(16)
	for _, r := range rels {
		g.Go(func() error {
			if err := d.Create(storage.RecordKey(r.Name, r.Version), r); err != nil {
				return fmt.Errorf("seed %s v%d: %w", r.Name, r.Version, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// chunkNames returns the names of the chunk Secrets of key that the index names.
func chunkNames(t *testing.T, ns, key string) []string {
	t.Helper()
	idx, err := secrets(ns).Get(t.Context(), key, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get index %s/%s: %v", ns, key, err)
	}
	names, err := storage.ParseExtraChunks(key, idx.Data[storage.DataExtraChunks])
	if err != nil {
		t.Fatalf("index %s/%s: %v", ns, key, err)
	}
	return names
}

// secretsOfKey returns the names of the Secrets (index and chunks) labelled with key.
func secretsOfKey(t *testing.T, ns, owner, key string) []string {
	t.Helper()
	list, err := secrets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{storage.LabelOwner: owner, storage.LabelKey: key}).String()})
	if err != nil {
		t.Fatalf("list secrets of %s: %v", key, err)
	}
	var out []string
	for _, s := range list.Items {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

// snapshot returns every Secret and ConfigMap of the namespaces, by
// kind/namespace/name, with its resourceVersion: equal snapshots mean nothing
// changed.
func snapshot(t *testing.T, namespaces ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ns := range namespaces {
		ss, err := secrets(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss.Items {
			out["Secret/"+ns+"/"+s.Name] = s.ResourceVersion
		}
		cms, err := cluster.Client.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cms.Items {
			out["ConfigMap/"+ns+"/"+c.Name] = c.ResourceVersion
		}
	}
	return out
}

// ensureNamespace creates namespace ns unless it exists.
func ensureNamespace(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
}

// mustErrIs fails unless err wraps want, and returns err's message.
func mustErrIs(t *testing.T, err, want error) string {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", want)
	}
	if !errors.Is(err, want) {
		t.Fatalf("got error %q (%T), want one wrapping %q", err, err, want)
	}
	return err.Error()
}

// mustContain fails unless s contains every one of subs.
func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q\ndoes not contain %q", s, sub)
		}
	}
}

// deleteNow is the options of a plain delete.
var deleteNow = metav1.DeleteOptions{}

// backdate makes the index of key look written long ago (at baseTime), as the
// records of a cluster that has run for a while are: a chunk lost from it is then
// a broken record at once, not one that another writer may still be storing (see
// kube.WritingWindow).
func backdate(t *testing.T, ns, key string) {
	t.Helper()
	at := strconv.FormatInt(baseTime.Unix(), 10)
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q,%q:%q}}}`, storage.LabelCreatedAt, at, storage.LabelModifiedAt, at)
	if _, err := secrets(ns).Patch(t.Context(), key, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("backdate %s/%s: %v", ns, key, err)
	}
}
