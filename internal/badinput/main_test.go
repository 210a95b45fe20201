package badinput_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/chunkview/chunkview/internal/testcluster"
)

// cluster is the real API server and etcd the storage corpus test runs against.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) { testcluster.Main(m, &cluster) }

// newNamespace creates a fresh namespace and returns its Secret client.
func newNamespace(t *testing.T) (string, corev1client.SecretInterface) {
	t.Helper()
	ns := cluster.Namespace(t)
	return ns, cluster.Client.CoreV1().Secrets(ns)
}

// recordingClient is a Secret client that records the reads made through it, as
// "get NAME" and "list SELECTOR".
type recordingClient struct {
	corev1client.SecretInterface
	mu    sync.Mutex
	calls []string
}

func newRecordingClient(inner corev1client.SecretInterface) *recordingClient {
	return &recordingClient{SecretInterface: inner}
}

func (r *recordingClient) record(call string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call)
}

func (r *recordingClient) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	r.record("get " + name)
	return r.SecretInterface.Get(ctx, name, opts)
}

func (r *recordingClient) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	r.record("list " + opts.LabelSelector)
	return r.SecretInterface.List(ctx, opts)
}

// Calls returns the reads made so far.
func (r *recordingClient) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Reset forgets the reads made so far.
func (r *recordingClient) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
