// Package testcluster starts a real kube-apiserver and etcd with controller-runtime's
// envtest, for the storage and operations tests. The binaries are the ones `make
// testbin` builds from Go modules into the repository's bin/ folder; nothing is
// downloaded. A missing binary fails the test run with the command that builds it:
// tests never skip themselves for want of a binary.
package testcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Cluster is a running envtest control plane.
type Cluster struct {
	Env    *envtest.Environment
	Config *rest.Config
	Client kubernetes.Interface
}

// AssetsDir returns the folder that holds kube-apiserver and etcd: KUBEBUILDER_ASSETS
// when set (the Makefile sets it), otherwise bin/ at the repository's root.
func AssetsDir() string {
	if d := os.Getenv("KUBEBUILDER_ASSETS"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "bin")
}

// Start starts a control plane. Call Stop when done; TestMain is the usual place.
func Start() (*Cluster, error) {
	dir := AssetsDir()
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return nil, fmt.Errorf("test cluster binary %s not found in %s: run `make testbin` first (it builds it from Go modules): %w", b, dir, err)
		}
	}
	env := &envtest.Environment{BinaryAssetsDirectory: dir}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("start envtest control plane from %s: %w", dir, err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("clientset for envtest: %w", err)
	}
	return &Cluster{Env: env, Config: cfg, Client: cs}, nil
}

// Stop stops the control plane.
func (c *Cluster) Stop() error {
	if c == nil || c.Env == nil {
		return nil
	}
	return c.Env.Stop()
}

// Main is a TestMain body: it starts a cluster, stores it in each of dst, runs the
// tests and stops the cluster. A cluster that cannot start fails the run.
func Main(m *testing.M, dst ...**Cluster) {
	c, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, d := range dst {
		*d = c
	}
	code := m.Run()
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop envtest:", err)
	}
	for _, f := range atExit {
		f()
	}
	os.Exit(code)
}

var atExit []func()

// AtExit makes Main call f once the tests have run, before it exits: for what
// a TestMain set up around them (a directory to remove).
func AtExit(f func()) { atExit = append(atExit, f) }

var nsCounter atomic.Int64

// Namespace creates a fresh namespace for one test and returns its name. The
// namespace is left behind when the test ends: envtest has no namespace controller to
// empty it, and the whole control plane goes away with the package.
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%d", os.Getpid()%10000, nsCounter.Add(1))
	_, err := c.Client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	return name
}

// ErrNoCluster is returned by helpers used before Main started a cluster.
var ErrNoCluster = errors.New("testcluster: no cluster started; call testcluster.Main from TestMain")
