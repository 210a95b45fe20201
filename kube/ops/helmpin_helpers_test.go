package ops_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"helm.sh/helm/v3/pkg/action"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// The harness of helmpin_test.go: Helm's own drivers over the test cluster, with
// or without pins, another writer on its own connection, and Helm's actions.

// helmStore is one of Helm's own record stores.
type helmStore struct {
	name     string
	resource string
	// driver returns Helm's driver over namespace ns of cs; held to p when p is
	// set; with after called right after each request below the pins returns (a
	// test's way of making another writer act in the middle of Helm's action).
	driver func(cs kubernetes.Interface, ns string, p *ops.Pins, after func(verb, arg string)) driver.Driver
}

var helmStores = []helmStore{
	{name: "secrets", resource: "secrets", driver: func(cs kubernetes.Interface, ns string, p *ops.Pins, after func(string, string)) driver.Driver {
		var c corev1client.SecretInterface = cs.CoreV1().Secrets(ns)
		if after != nil {
			c = &hookedSecrets{SecretInterface: c, after: after}
		}
		if p != nil {
			c = ops.PinSecrets(c, p)
		}
		return driver.NewSecrets(c)
	}},
	{name: "configmaps", resource: "configmaps", driver: func(cs kubernetes.Interface, ns string, p *ops.Pins, after func(string, string)) driver.Driver {
		var c corev1client.ConfigMapInterface = cs.CoreV1().ConfigMaps(ns)
		if after != nil {
			c = &hookedConfigMaps{ConfigMapInterface: c, after: after}
		}
		if p != nil {
			c = ops.PinConfigMaps(c, p)
		}
		return driver.NewConfigMaps(c)
	}},
}

type hookedSecrets struct {
	corev1client.SecretInterface
	after func(verb, arg string)
}

func (h *hookedSecrets) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	l, err := h.SecretInterface.List(ctx, opts)
	h.after("list", opts.LabelSelector)
	return l, err
}

func (h *hookedSecrets) Create(ctx context.Context, o *corev1.Secret, opts metav1.CreateOptions) (*corev1.Secret, error) {
	r, err := h.SecretInterface.Create(ctx, o, opts)
	h.after("create", o.Name)
	return r, err
}

func (h *hookedSecrets) Update(ctx context.Context, o *corev1.Secret, opts metav1.UpdateOptions) (*corev1.Secret, error) {
	r, err := h.SecretInterface.Update(ctx, o, opts)
	h.after("update", o.Name)
	return r, err
}

type hookedConfigMaps struct {
	corev1client.ConfigMapInterface
	after func(verb, arg string)
}

func (h *hookedConfigMaps) List(ctx context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error) {
	l, err := h.ConfigMapInterface.List(ctx, opts)
	h.after("list", opts.LabelSelector)
	return l, err
}

func (h *hookedConfigMaps) Create(ctx context.Context, o *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error) {
	r, err := h.ConfigMapInterface.Create(ctx, o, opts)
	h.after("create", o.Name)
	return r, err
}

func (h *hookedConfigMaps) Update(ctx context.Context, o *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	r, err := h.ConfigMapInterface.Update(ctx, o, opts)
	h.after("update", o.Name)
	return r, err
}

// once returns a hook that runs do the first time verb is called with an argument
// containing arg.
func once(verb, arg string, do func()) func(string, string) {
	var done atomic.Bool
	return func(v, a string) {
		if v == verb && strings.Contains(a, arg) && done.CompareAndSwap(false, true) {
			do()
		}
	}
}

// otherClient returns a clientset on a connection of its own (a dialer makes
// client-go give it its own transport): another writer, as helm or an operator.
func otherClient(t *testing.T) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(cluster.Config)
	cfg.Dial = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
	cfg.UserAgent = "other-writer"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// seedHelm stores revisions 1..3 of release name with Helm's own driver over the
// plain clientset: 1 and 2 superseded, 3 deployed.
func seedHelm(t *testing.T, st helmStore, ns, name string) {
	t.Helper()
	d := st.driver(cluster.Client, ns, nil, nil)
	for _, r := range history(name, ns, 3, 0) {
		if err := d.Create(storage.RecordKey(name, r.Version), r); err != nil {
			t.Fatalf("seed %s v%d: %v", name, r.Version, err)
		}
	}
}

// helmRecords lists the records of release name from metadata, as a plan does:
// key → resourceVersion.
func helmRecords(t *testing.T, st helmStore, ns, name string) map[string]string {
	t.Helper()
	md, err := metadata.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	list, err := md.Resource(corev1.SchemeGroupVersion.WithResource(st.resource)).Namespace(ns).
		List(t.Context(), metav1.ListOptions{LabelSelector: "name=" + name + ",owner=helm"})
	if err != nil {
		t.Fatalf("list %s of %s: %v", st.resource, name, err)
	}
	out := map[string]string{}
	for _, m := range list.Items {
		out[m.Name] = m.ResourceVersion
	}
	return out
}

// readBack returns the revisions of release name, read with Helm's own unpinned
// driver.
func readBack(t *testing.T, st helmStore, ns, name string) map[int]*release.Release {
	t.Helper()
	rels, err := st.driver(cluster.Client, ns, nil, nil).Query(map[string]string{"name": name, "owner": "helm"})
	if errors.Is(err, driver.ErrReleaseNotFound) {
		return map[int]*release.Release{}
	}
	if err != nil {
		t.Fatalf("read back %s: %v", name, err)
	}
	out := map[int]*release.Release{}
	for _, r := range rels {
		out[r.Version] = r
	}
	return out
}

// describe says what state a revision is in, for failure messages: never its
// values or manifest (release data is never logged).
func describe(r *release.Release) string {
	if r == nil {
		return "absent"
	}
	return fmt.Sprintf("%s (%q)", r.Info.Status, r.Info.Description)
}

// wantStatus fails unless the revisions of got have exactly the statuses want.
func wantStatus(t *testing.T, got map[int]*release.Release, want map[int]release.Status) {
	t.Helper()
	have := map[int]release.Status{}
	for v, r := range got {
		have[v] = r.Info.Status
	}
	if !maps.Equal(have, want) {
		t.Errorf("statuses: got %v, want %v", have, want)
	}
}

// pinActionConfig is the action configuration of a test: Helm's storage over d, a kube
// client that applies nothing, and no logging (release data is never logged).
func pinActionConfig(d driver.Driver) *action.Configuration {
	return &action.Configuration{
		Releases:   helmstorage.Init(d),
		KubeClient: &kubefake.PrintingKubeClient{Out: io.Discard},
		Log:        func(string, ...interface{}) {},
	}
}

func rollbackTo(d driver.Driver, name string, rev int) error {
	rb := action.NewRollback(pinActionConfig(d))
	rb.Version = rev
	return rb.Run(name)
}

func uninstall(d driver.Driver, name string, keepHistory bool) error {
	u := action.NewUninstall(pinActionConfig(d))
	u.KeepHistory = keepHistory
	_, err := u.Run(name)
	return err
}

// foreignDescription is what the other writer writes into the records it changes.
const foreignDescription = "changed by the other writer"

// rewrite is another writer's change of revision rev: Helm's own driver reads it
// and stores it back with status and the other writer's description.
func rewrite(t *testing.T, d driver.Driver, name string, rev int, status release.Status) {
	t.Helper()
	key := storage.RecordKey(name, rev)
	r, err := d.Get(key)
	if err != nil {
		t.Errorf("other writer: get %s: %v", key, err)
		return
	}
	r.Info.Status = status
	r.Info.Description = foreignDescription
	if err := d.Update(key, r); err != nil {
		t.Errorf("other writer: update %s: %v", key, err)
	}
}

func wantWritten(t *testing.T, p *ops.Pins, want ...string) {
	t.Helper()
	if got := p.Written(); !slices.Equal(got, want) {
		t.Errorf("written: got %q, want %q", got, want)
	}
}
