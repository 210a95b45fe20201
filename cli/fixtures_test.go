package cli_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	helmkube "helm.sh/helm/v3/pkg/kube"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/storage"
)

// writer names the driver that writes a test release.
type writer string

const (
	// byChunkview writes with chunkview's own driver.
	byChunkview writer = "chunkview"
	// byPlugins writes with operator-framework/helm-operator-plugins v0.9.1's driver.
	byPlugins writer = "helm-operator-plugins"
)

var writers = []writer{byChunkview, byPlugins}

// testOwner is the owner label of the test records: the CLI's default.
const testOwner = "helm"

// testChunkSize is small, so that small releases take several chunk Secrets.
const testChunkSize = 1024

// driverFor returns the driver w writes with, over storage namespace ns.
func driverFor(w writer, ns string) driver.Driver { return ownerDriver(w, ns, testOwner) }

func ownerDriver(w writer, ns, owner string) driver.Driver {
	secrets := cluster.Client.CoreV1().Secrets(ns)
	if w == byPlugins {
		return hopstorage.NewChunkedSecrets(secrets, owner, hopstorage.ChunkedSecretsConfig{ChunkSize: testChunkSize})
	}
	return storage.NewChunkedSecrets(secrets, owner, storage.ChunkedSecretsConfig{ChunkSize: testChunkSize})
}

// actionConfig is Helm's action configuration over the test cluster with w's driver.
func (e *env) actionConfig(w writer) *action.Configuration {
	return e.actionConfigIn(driverFor(w, e.ns), e.ns)
}

// actionConfigIn is Helm's action configuration storing through d, for releases in
// namespace ns.
func (e *env) actionConfigIn(d driver.Driver, ns string) *action.Configuration {
	getter := genericclioptions.NewConfigFlags(false)
	getter.KubeConfig = &e.kubeconfig
	getter.CacheDir = &e.cacheDir
	getter.Namespace = &ns
	kc := helmkube.New(getter)
	kc.Namespace = ns
	return &action.Configuration{
		RESTClientGetter: getter,
		Releases:         helmstorage.Init(d),
		KubeClient:       kc,
		Capabilities:     chartutil.DefaultCapabilities,
		Log:              func(string, ...interface{}) {},
	}
}

// testChart renders one ConfigMap from the values greeting and blob.
func testChart() *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{Name: "greeter", Version: "1.2.3", AppVersion: "4.5.6", APIVersion: "v2"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  greeting: {{ .Values.greeting | quote }}
  blob: {{ .Values.blob | quote }}
`)}},
		Values: map[string]interface{}{"greeting": "hello", "blob": ""},
	}
}

// valuesFor returns the user values of revision rev: a greeting that changes with
// each revision, a secret, and noise that gzip cannot shrink, so the release takes
// several chunks.
func valuesFor(name string, rev int) map[string]interface{} {
	return map[string]interface{}{
		"greeting": fmt.Sprintf("hello from revision %d", rev),
		"password": fmt.Sprintf("hunter2-secret-%d", rev),
		"blob":     noise(name, 2500),
	}
}

func noise(seed string, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var s uint64
	for _, c := range seed {
		s = s*131 + uint64(c)
	}
	r := rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// install installs release name with Helm's install action through w's driver and
// upgrades it to the given number of revisions. Its ConfigMap exists on the server.
func (e *env) install(w writer, name string, revisions int) {
	e.t.Helper()
	e.installWith(e.actionConfig(w), e.ns, w, name, revisions)
}

// installWith is install through cfg, for a release in namespace ns.
func (e *env) installWith(cfg *action.Configuration, ns string, w writer, name string, revisions int) {
	e.t.Helper()
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, ns
	if _, err := in.Run(testChart(), valuesFor(name, 1)); err != nil {
		e.t.Fatalf("install %s with %s: %v", name, w, err)
	}
	for rev := 2; rev <= revisions; rev++ {
		up := action.NewUpgrade(cfg)
		up.Namespace = ns
		if _, err := up.Run(name, testChart(), valuesFor(name, rev)); err != nil {
			e.t.Fatalf("upgrade %s to revision %d with %s: %v", name, rev, w, err)
		}
	}
}

// addPending stores a new latest revision of name in status, started ago, as an
// operation interrupted mid-way leaves it.
func (e *env) addPending(w writer, name string, status release.Status, ago time.Duration) int {
	e.t.Helper()
	return e.addPendingWith(driverFor(w, e.ns), name, status, ago)
}

// addPendingWith is addPending through driver d.
func (e *env) addPendingWith(d driver.Driver, name string, status release.Status, ago time.Duration) int {
	e.t.Helper()
	rels, err := d.Query(map[string]string{"name": name, "owner": "helm"})
	if err != nil {
		e.t.Fatalf("query %s: %v", name, err)
	}
	latest := rels[0]
	for _, r := range rels {
		if r.Version > latest.Version {
			latest = r
		}
	}
	next := *latest
	info := *latest.Info
	next.Info = &info
	next.Version = latest.Version + 1
	next.Info.Status = status
	next.Info.Description = "Upgrade in progress"
	next.Info.LastDeployed = helmtime.Time{Time: time.Now().Add(-ago)}
	if err := d.Create(storage.RecordKey(name, next.Version), &next); err != nil {
		e.t.Fatalf("store pending revision of %s: %v", name, err)
	}
	return next.Version
}

// secrets returns the names of the record Secrets of release name (index and
// chunks), by revision.
func (e *env) secrets(name string) map[int][]string {
	e.t.Helper()
	list, err := cluster.Client.CoreV1().Secrets(e.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "owner=" + testOwner})
	if err != nil {
		e.t.Fatalf("list Secrets: %v", err)
	}
	out := map[int][]string{}
	for _, s := range list.Items {
		n, rev, ok := storage.ParseKey(s.Labels[storage.LabelKey])
		if ok && n == name {
			out[rev] = append(out[rev], s.Name)
		}
	}
	return out
}

// chunkOf returns the name of one chunk Secret of revision rev of name.
func (e *env) chunkOf(name string, rev int) string {
	e.t.Helper()
	for _, s := range e.secrets(name)[rev] {
		if s != storage.RecordKey(name, rev) {
			return s
		}
	}
	e.t.Fatalf("revision %d of %s has no chunk Secret", rev, name)
	return ""
}

// deleteSecret deletes one Secret behind the driver's back.
func (e *env) deleteSecret(name string) {
	e.t.Helper()
	if err := cluster.Client.CoreV1().Secrets(e.ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatalf("delete Secret %s: %v", name, err)
	}
}

// configMap returns the data of the ConfigMap of release name, or nil when gone.
func (e *env) configMap(name string) map[string]string { return e.configMapIn(e.ns, name) }

// configMapIn is configMap for a release in namespace ns.
func (e *env) configMapIn(ns, name string) map[string]string {
	e.t.Helper()
	cm, err := cluster.Client.CoreV1().ConfigMaps(ns).Get(context.Background(), name+"-cm", metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return cm.Data
}

// addOrphan creates a chunk Secret of release name's revision rev that no index
// names, as an interrupted write leaves one.
func (e *env) addOrphan(name string, rev int) string {
	e.t.Helper()
	key := storage.RecordKey(name, rev)
	data := []byte("left over by an interrupted write " + name)
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:   storage.ChunkName(key, data),
			Labels: map[string]string{storage.LabelOwner: testOwner, storage.LabelKey: key, storage.LabelType: storage.TypeChunk, storage.LabelCreatedAt: "1"},
		},
		Type:      storage.SecretTypeChunk,
		Immutable: new(true),
		Data:      map[string][]byte{storage.DataChunk: data},
	}
	if _, err := cluster.Client.CoreV1().Secrets(e.ns).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("create orphan chunk: %v", err)
	}
	return s.Name
}
