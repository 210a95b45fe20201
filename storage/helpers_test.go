package storage_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// testOwner is the owner label value of the records the tests write.
const testOwner = "test-owner"

// secretsIn returns the Secret client of namespace ns on the test cluster.
func secretsIn(ns string) corev1client.SecretInterface {
	return cluster.Client.CoreV1().Secrets(ns)
}

// newNamespace creates a fresh namespace and returns its Secret client.
func newNamespace(t *testing.T) (string, corev1client.SecretInterface) {
	t.Helper()
	ns := cluster.Namespace(t)
	return ns, secretsIn(ns)
}

// errInjected is wrapped by every error faultClient makes up.
var errInjected = errors.New("injected fault")

// faultClient wraps a Secret client. It records every method call, can fail the
// failAt-th call (1-based) before forwarding it (the request never reaches the
// server) or after (the server applied it, the caller sees an error, as with a
// dropped response), and can run a hook before forwarding a call.
type faultClient struct {
	corev1client.SecretInterface

	// failAt is the call to fail; zero fails none.
	failAt int
	// after fails the call after forwarding it instead of before.
	after bool
	// failRest also fails every call after failAt, before it reaches the server:
	// the process died there.
	failRest bool
	// hook, when set, runs before a call is forwarded (and before it is failed).
	hook func(n int, method, name string)

	mu     sync.Mutex
	calls  []string
	failed string
}

func newFaultClient(inner corev1client.SecretInterface) *faultClient {
	return &faultClient{SecretInterface: inner}
}

// begin records a call and reports its number and whether it is the one to fail.
func (f *faultClient) begin(method, name string) (int, bool) {
	f.mu.Lock()
	f.calls = append(f.calls, method+" "+name)
	n := len(f.calls)
	fail := n == f.failAt || f.failRest && f.failAt > 0 && n > f.failAt
	if fail && f.failed == "" {
		f.failed = method + " " + name
	}
	hook := f.hook
	f.mu.Unlock()
	if hook != nil {
		hook(n, method, name)
	}
	return n, fail
}

func (f *faultClient) fault(n int, method, name string) error {
	when := "before"
	if f.after {
		when = "after"
	}
	return fmt.Errorf("%w: call %d (%s %s) failed %s reaching the server", errInjected, n, method, name, when)
}

// Calls returns the calls made so far, as "method name".
func (f *faultClient) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// Count returns how many calls were made.
func (f *faultClient) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// CountBy returns how many calls of each method were made.
func (f *faultClient) CountBy() map[string]int {
	out := map[string]int{}
	for _, c := range f.Calls() {
		m, _, _ := strings.Cut(c, " ")
		out[m]++
	}
	return out
}

// Reset forgets the calls made so far.
func (f *faultClient) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
	f.failed = ""
}

// Failed returns the call that was failed, if any.
func (f *faultClient) Failed() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *faultClient) Create(ctx context.Context, s *corev1.Secret, opts metav1.CreateOptions) (*corev1.Secret, error) {
	n, fail := f.begin("create", s.Name)
	if fail && !f.after {
		return nil, f.fault(n, "create", s.Name)
	}
	out, err := f.SecretInterface.Create(ctx, s, opts)
	if fail {
		return nil, f.fault(n, "create", s.Name)
	}
	return out, err
}

func (f *faultClient) Update(ctx context.Context, s *corev1.Secret, opts metav1.UpdateOptions) (*corev1.Secret, error) {
	n, fail := f.begin("update", s.Name)
	if fail && !f.after {
		return nil, f.fault(n, "update", s.Name)
	}
	out, err := f.SecretInterface.Update(ctx, s, opts)
	if fail {
		return nil, f.fault(n, "update", s.Name)
	}
	return out, err
}

func (f *faultClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	n, fail := f.begin("delete", name)
	if fail && !f.after {
		return f.fault(n, "delete", name)
	}
	err := f.SecretInterface.Delete(ctx, name, opts)
	if fail {
		return f.fault(n, "delete", name)
	}
	return err
}

func (f *faultClient) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	n, fail := f.begin("deletecollection", listOpts.LabelSelector)
	if fail && !f.after {
		return f.fault(n, "deletecollection", listOpts.LabelSelector)
	}
	err := f.SecretInterface.DeleteCollection(ctx, opts, listOpts)
	if fail {
		return f.fault(n, "deletecollection", listOpts.LabelSelector)
	}
	return err
}

func (f *faultClient) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	n, fail := f.begin("get", name)
	if fail && !f.after {
		return nil, f.fault(n, "get", name)
	}
	out, err := f.SecretInterface.Get(ctx, name, opts)
	if fail {
		return nil, f.fault(n, "get", name)
	}
	return out, err
}

func (f *faultClient) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	n, fail := f.begin("list", opts.LabelSelector)
	if fail && !f.after {
		return nil, f.fault(n, "list", opts.LabelSelector)
	}
	out, err := f.SecretInterface.List(ctx, opts)
	if fail {
		return nil, f.fault(n, "list", opts.LabelSelector)
	}
	return out, err
}

func (f *faultClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	n, fail := f.begin("watch", opts.LabelSelector)
	if fail && !f.after {
		return nil, f.fault(n, "watch", opts.LabelSelector)
	}
	out, err := f.SecretInterface.Watch(ctx, opts)
	if fail {
		if out != nil {
			out.Stop()
		}
		return nil, f.fault(n, "watch", opts.LabelSelector)
	}
	return out, err
}

func (f *faultClient) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*corev1.Secret, error) {
	n, fail := f.begin("patch", name)
	if fail && !f.after {
		return nil, f.fault(n, "patch", name)
	}
	out, err := f.SecretInterface.Patch(ctx, name, pt, data, opts, sub...)
	if fail {
		return nil, f.fault(n, "patch", name)
	}
	return out, err
}

func (f *faultClient) Apply(ctx context.Context, s *applycorev1.SecretApplyConfiguration, opts metav1.ApplyOptions) (*corev1.Secret, error) {
	name := ""
	if s != nil && s.Name != nil {
		name = *s.Name
	}
	n, fail := f.begin("apply", name)
	if fail && !f.after {
		return nil, f.fault(n, "apply", name)
	}
	out, err := f.SecretInterface.Apply(ctx, s, opts)
	if fail {
		return nil, f.fault(n, "apply", name)
	}
	return out, err
}

// listSecrets returns all Secrets of the client's namespace, by name.
func listSecrets(t *testing.T, c corev1client.SecretInterface) map[string]corev1.Secret {
	t.Helper()
	list, err := c.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list Secrets: %v", err)
	}
	out := make(map[string]corev1.Secret, len(list.Items))
	for _, s := range list.Items {
		out[s.Name] = s
	}
	return out
}

// secretNames returns the sorted names of all Secrets of the client's namespace.
func secretNames(t *testing.T, c corev1client.SecretInterface) []string {
	t.Helper()
	return slices.Sorted(maps.Keys(listSecrets(t, c)))
}

// versions returns name -> resourceVersion of all Secrets of the namespace, to show
// that an operation changed nothing.
func versions(t *testing.T, c corev1client.SecretInterface) map[string]string {
	t.Helper()
	out := map[string]string{}
	for n, s := range listSecrets(t, c) {
		out[n] = s.ResourceVersion
	}
	return out
}

// recordNames returns the Secrets that make up the stored record of key: the index
// and the distinct chunk names it lists, sorted. It is empty when there is no index.
func recordNames(t *testing.T, c corev1client.SecretInterface, key string) []string {
	t.Helper()
	idx, err := c.Get(context.Background(), key, metav1.GetOptions{})
	if err != nil {
		if isNotFound(err) {
			return nil
		}
		t.Fatalf("get index %s: %v", key, err)
	}
	names, err := storage.ParseExtraChunks(key, idx.Data[storage.DataExtraChunks])
	if err != nil {
		t.Fatalf("index %s: %v", key, err)
	}
	set := map[string]bool{key: true}
	for _, n := range names {
		set[n] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// mustHoldOnly fails unless the namespace holds exactly the Secrets of the records
// of keys (index and chunks each), nothing else.
func mustHoldOnly(t *testing.T, c corev1client.SecretInterface, keys ...string) {
	t.Helper()
	var want []string
	for _, k := range keys {
		want = append(want, recordNames(t, c, k)...)
	}
	sort.Strings(want)
	if got := secretNames(t, c); !slices.Equal(got, want) {
		t.Fatalf("namespace holds Secrets %v, want exactly %v", got, want)
	}
}

// mustRemoveLeftovers finds the unreferenced chunks of owner with FindLeftovers,
// removes them with RemoveLeftovers and returns how many there were.
func mustRemoveLeftovers(t *testing.T, c corev1client.SecretInterface, owner string) int {
	t.Helper()
	ctx := context.Background()
	// Any positive age: every chunk left by an operation that has returned counts.
	los, err := storage.FindLeftovers(ctx, c, owner, time.Nanosecond)
	if err != nil {
		t.Fatalf("FindLeftovers: %v", err)
	}
	n, err := storage.RemoveLeftovers(ctx, c, los)
	if err != nil {
		t.Fatalf("RemoveLeftovers: %v", err)
	}
	if n != len(los) {
		t.Fatalf("RemoveLeftovers removed %d of %d leftovers %v", n, len(los), los)
	}
	return n
}

// mustAllReadable fails unless every index Secret of owner decodes with a clean
// driver: no record is torn.
func mustAllReadable(t *testing.T, c corev1client.SecretInterface, owner string) {
	t.Helper()
	d := storage.NewDriver(c, owner, storage.ChunkedSecretsConfig{})
	list, err := c.List(context.Background(), metav1.ListOptions{LabelSelector: storage.IndexSelector(owner).String()})
	if err != nil {
		t.Fatalf("list indexes: %v", err)
	}
	for i := range list.Items {
		if _, err := d.Decode(context.Background(), &list.Items[i]); err != nil {
			t.Fatalf("torn record: index %s does not read: %v", list.Items[i].Name, err)
		}
	}
}

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }

// mustBeOneOf fails unless got is one of the wanted releases (compared in full); nil
// in wants accepts "no release".
func mustBeOneOf(t *testing.T, got *release.Release, wants ...*release.Release) {
	t.Helper()
	for _, w := range wants {
		if w == nil && got == nil {
			return
		}
		if w != nil && got != nil && sameRelease(w, got) {
			return
		}
	}
	desc := "no release"
	if got != nil {
		desc = fmt.Sprintf("%s v%d %s (%d manifest bytes)", got.Name, got.Version, got.Info.Status, len(got.Manifest))
	}
	t.Fatalf("stored release is %s, none of the %d allowed states", desc, len(wants))
}

func sameRelease(a, b *release.Release) bool {
	return a.Name == b.Name && a.Version == b.Version && a.Manifest == b.Manifest &&
		a.Namespace == b.Namespace && a.Info != nil && b.Info != nil &&
		a.Info.Status == b.Info.Status && a.Info.Description == b.Info.Description &&
		a.Info.LastDeployed.Equal(b.Info.LastDeployed) &&
		fmt.Sprint(a.Labels) == fmt.Sprint(b.Labels) && fmt.Sprint(a.Config) == fmt.Sprint(b.Config)
}

// getOrNil returns the release under key, nil if there is none; any other error
// fails the test.
func getOrNil(t *testing.T, d driver.Driver, key string) *release.Release {
	t.Helper()
	rls, err := d.Get(key)
	if err == driver.ErrReleaseNotFound {
		return nil
	}
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	return rls
}

// waitForCache waits until the API server's watch cache serves every chunk Secret
// of c at the resourceVersion etcd holds, so that a test counting requests sees the
// driver's cached chunk reads succeed the first time.
func waitForCache(t *testing.T, c corev1client.SecretInterface) {
	t.Helper()
	ctx := context.Background()
	list, err := c.List(ctx, metav1.ListOptions{LabelSelector: storage.LabelType + "=" + storage.TypeChunk})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, s := range list.Items {
		for {
			got, err := c.Get(ctx, s.Name, metav1.GetOptions{ResourceVersion: "0"})
			if err == nil && got.ResourceVersion == s.ResourceVersion {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the watch cache does not serve chunk %s at resourceVersion %s: %v", s.Name, s.ResourceVersion, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// logRecorder is a driver Log func that keeps every line.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) Log(format string, args ...interface{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logRecorder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
