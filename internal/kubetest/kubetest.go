// Package kubetest holds what the tests of kube and its operations share: the
// test cluster they run against, connections made as chunkview's main makes them,
// a log of the requests that reach the wire, realistic releases, and seeding and
// snapshot helpers. Only tests import it.
package kubetest

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
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// Cluster is the real API server and etcd the tests run against: TestMain starts
// it with testcluster.Main(m, &local, &kubetest.Cluster).
var Cluster *testcluster.Cluster

// ---- kubeconfig and connections ------------------------------------------------

// WriteKubeconfig writes a kubeconfig for cfg into a temporary folder and returns its
// path. namespace, when set, becomes the context's namespace.
func WriteKubeconfig(t testing.TB, cfg *rest.Config, namespace string) string {
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

// AdminKubeconfig is WriteKubeconfig for the test cluster's admin.
func AdminKubeconfig(t testing.TB, namespace string) string {
	return WriteKubeconfig(t, Cluster.Config, namespace)
}

// Connect builds a Client the way chunkview's main does: kubectl-style flags parsed
// from args, then Options.Connect. setup, when set, adjusts the options after the
// flags are parsed (Stats, WrapConfig).
func Connect(t *testing.T, kubeconfig string, args []string, setup func(*kube.Options)) *kube.Client {
	t.Helper()
	c, err := TryConnect(t, kubeconfig, args, setup)
	if err != nil {
		t.Fatalf("connect %v: %v", args, err)
	}
	return c
}

func TryConnect(t *testing.T, kubeconfig string, args []string, setup func(*kube.Options)) (*kube.Client, error) {
	t.Helper()
	o := ParseOptions(t, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", t.TempDir()}, args...))
	if setup != nil {
		setup(o)
	}
	return o.Connect()
}

func ParseOptions(t testing.TB, args []string) *kube.Options {
	t.Helper()
	o := kube.NewOptions()
	fs := pflag.NewFlagSet("chunkview", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse flags %v: %v", args, err)
	}
	return o
}

// WireRequest is one request as it left for the server.
type WireRequest struct {
	Method, Path, Query, Accept string
}

func (r WireRequest) String() string { return r.Method + " " + r.Path + "?" + r.Query }

// WireLog records every request right above the connection: it is put in place by
// Options.WrapConfig, the innermost wrapper, so it sees exactly what the server sees.
type WireLog struct {
	mu   sync.Mutex
	reqs []WireRequest
	// WireBytes counts bytes read from the TCP connections (TLS and compression
	// included): what really crossed the network.
	WireBytes atomic.Int64
}

// Install wraps rc so that every request is recorded and every connection's bytes
// counted.
func (w *WireLog) Install(rc *rest.Config) {
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &wireRT{next: rt, w: w} })
	d := &net.Dialer{Timeout: 10 * time.Second}
	rc.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, n: &w.WireBytes}, nil
	}
}

func (w *WireLog) Requests() []WireRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.reqs)
}

func (w *WireLog) Reset() {
	w.mu.Lock()
	w.reqs = nil
	w.mu.Unlock()
	w.WireBytes.Store(0)
}

// Mutating returns the requests that could change the Cluster.
func (w *WireLog) Mutating() []WireRequest {
	var out []WireRequest
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
	w    *WireLog
}

func (t *wireRT) RoundTrip(req *http.Request) (*http.Response, error) {
	t.w.mu.Lock()
	t.w.reqs = append(t.w.reqs, WireRequest{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Accept: req.Header.Get("Accept")})
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

// Noise returns n characters that gzip cannot shrink much, the same for the same
// seed.
func Noise(seed string, n int) string {
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

// BaseTime is when the releases the tests make were deployed: fixed, so that the
// encoded payloads, and so the chunk names, are the same on every run.
var BaseTime = time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)

// MakeRelease returns a realistic release: chart metadata, user-supplied values with
// a database password, and a manifest of ConfigMaps and a Secret. blob adds a
// ConfigMap of that many poorly compressible characters, to make the release span
// several chunks.
func MakeRelease(name, namespace string, rev int, status release.Status, blob int) *release.Release {
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
		manifest += fmt.Sprintf("---\n# Source: webapp/templates/blob.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-blob\n  namespace: %s\ndata:\n  blob: %s\n", name, namespace, Noise(fmt.Sprintf("%s/%s/%d", namespace, name, rev), blob))
	}
	ts := helmtime.Time{Time: BaseTime.Add(time.Duration(rev) * time.Hour)}
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
			FirstDeployed: helmtime.Time{Time: BaseTime.Add(time.Hour)},
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

// History returns revisions 1..n of a release: the last deployed, the rest
// superseded.
func History(name, namespace string, n, blob int) []*release.Release {
	out := make([]*release.Release, 0, n)
	for rev := 1; rev <= n; rev++ {
		st := release.StatusSuperseded
		if rev == n {
			st = release.StatusDeployed
		}
		out = append(out, MakeRelease(name, namespace, rev, st, blob))
	}
	return out
}

// ---- drivers and seeding -------------------------------------------------------

func Secrets(ns string) corev1client.SecretInterface { return Cluster.Client.CoreV1().Secrets(ns) }

// ChunkviewDriver is chunkview's driver over namespace ns.
func ChunkviewDriver(ns, owner string, chunkSize int) driver.Driver {
	return storage.NewChunkedSecrets(Secrets(ns), owner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
}

// OriginalDriver is helm-operator-plugins' driver, the one OLMv1 runs, over
// namespace ns.
func OriginalDriver(ns, owner string, chunkSize int) driver.Driver {
	return hopstorage.NewChunkedSecrets(Secrets(ns), owner, hopstorage.ChunkedSecretsConfig{ChunkSize: chunkSize})
}

// Seed stores every release through d, a few at a time.
func Seed(t *testing.T, d driver.Driver, rels ...*release.Release) {
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

// ChunkNames returns the names of the chunk Secrets of key that the index names.
func ChunkNames(t *testing.T, ns, key string) []string {
	t.Helper()
	idx, err := Secrets(ns).Get(t.Context(), key, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get index %s/%s: %v", ns, key, err)
	}
	names, err := storage.ParseExtraChunks(key, idx.Data[storage.DataExtraChunks])
	if err != nil {
		t.Fatalf("index %s/%s: %v", ns, key, err)
	}
	return names
}

// SecretsOfKey returns the names of the Secrets (index and chunks) labelled with key.
func SecretsOfKey(t *testing.T, ns, owner, key string) []string {
	t.Helper()
	list, err := Secrets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{storage.LabelOwner: owner, storage.LabelKey: key}).String()})
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

// Snapshot returns every Secret and ConfigMap of the namespaces, by
// kind/namespace/name, with its resourceVersion: equal snapshots mean nothing
// changed.
func Snapshot(t *testing.T, namespaces ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ns := range namespaces {
		ss, err := Secrets(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss.Items {
			out["Secret/"+ns+"/"+s.Name] = s.ResourceVersion
		}
		cms, err := Cluster.Client.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cms.Items {
			out["ConfigMap/"+ns+"/"+c.Name] = c.ResourceVersion
		}
	}
	return out
}

// EnsureNamespace creates namespace ns unless it exists.
func EnsureNamespace(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
}

// MustErrIs fails unless err wraps want, and returns err's message.
func MustErrIs(t *testing.T, err, want error) string {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", want)
	}
	if !errors.Is(err, want) {
		t.Fatalf("got error %q (%T), want one wrapping %q", err, err, want)
	}
	return err.Error()
}

// MustContain fails unless s contains every one of subs.
func MustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q\ndoes not contain %q", s, sub)
		}
	}
}

// DeleteNow is the options of a plain delete.
var DeleteNow = metav1.DeleteOptions{}

// Backdate makes the index of key look written long ago (at BaseTime), as the
// records of a cluster that has run for a while are: a chunk lost from it is then
// a broken record at once, not one that another writer may still be storing (see
// kube.WritingWindow).
func Backdate(t *testing.T, ns, key string) {
	t.Helper()
	at := strconv.FormatInt(BaseTime.Unix(), 10)
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q,%q:%q}}}`, storage.LabelCreatedAt, at, storage.LabelModifiedAt, at)
	if _, err := Secrets(ns).Patch(t.Context(), key, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("backdate %s/%s: %v", ns, key, err)
	}
}

// ---- RBAC ----------------------------------------------------------------------

// Grant gives user the rules in namespace ns.
func Grant(t *testing.T, ns, user, name string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	rbac := Cluster.Client.RbacV1()
	if _, err := rbac.Roles(ns).Create(t.Context(), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
	}
	if _, err := rbac.RoleBindings(ns).Create(t.Context(), rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// RBACUser adds a user to the cluster and returns a kubeconfig for it whose context
// namespace is ns.
func RBACUser(t *testing.T, name, ns string) string {
	t.Helper()
	u, err := Cluster.Env.AddUser(envtest.User{Name: name, Groups: []string{"rbac-testers"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return WriteKubeconfig(t, u.Config(), ns)
}

// WaitAllowed retries fn until RBAC has caught up with a new binding.
func WaitAllowed(t *testing.T, what string, fn func() error) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var ReadSecrets = rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list"}}

// CreateChunk creates a well-formed chunk Secret of key holding data, named after
// its hash, with no owner: what an interrupted write leaves.
func CreateChunk(t *testing.T, ns, owner, key string, data []byte) string {
	t.Helper()
	name := storage.ChunkName(key, data)
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			storage.LabelOwner: owner, storage.LabelKey: key, storage.LabelType: storage.TypeChunk,
			storage.LabelCreatedAt: fmt.Sprint(time.Now().Unix()),
		}},
		Type: storage.SecretTypeChunk, Immutable: ptr.To(true),
		Data: map[string][]byte{storage.DataChunk: data},
	}
	if _, err := Secrets(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}
