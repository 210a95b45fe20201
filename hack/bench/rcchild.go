package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	helmclient "github.com/operator-framework/helm-operator-plugins/pkg/client"

	"github.com/chunkview/chunkview/internal/adoption"
	"github.com/chunkview/chunkview/storage"
)

// The reconcile benchmark runs each read path in a child process of its own (`bench
// -child reconcile -child-target PATH`), as an operator runs: its heap, its garbage
// collector and its CPU time are its own, and a cache one path keeps does not slow
// the others' collections. The parent sends one request a line on stdin and reads
// one answer a line on stdout.

// rcFleetFile is what a child is told of the fleet: the system namespace, and per
// extension its ClusterExtension and the chart the reconcile upgrades to.
type rcFleetFile struct {
	Namespace string  `json:"namespace"`
	Revisions int     `json:"revisions"`
	Exts      []rcExt `json:"exts"`
}

type rcExt struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
	ChartFile string `json:"chartFile"`
}

type rcRequest struct {
	Op  string `json:"op"` // "reconcile", "heap" or "quit"
	Ext int    `json:"ext"`
}

// rcAnswer is a child's answer: the cost of one reconcile, or the heap it holds.
type rcAnswer struct {
	Err string `json:"err,omitempty"`
	rcCost
	// Heap is the live heap after a collection, less the heap the child held
	// before it built its read path (the charts it upgrades to, its code).
	Heap int64 `json:"heap"`
	// Startup is what building the read path cost (a cache's list and watch),
	// in the answer to the first request.
	Startup *rcCost `json:"startup,omitempty"`
	// Changed reports a dry run whose manifest differs from the deployed one:
	// not a steady state.
	Changed bool `json:"changed,omitempty"`
	// Cache is what the cached read path holds, in the answer to "heap".
	Cache *storage.ReleaseCacheStats `json:"cache,omitempty"`
}

// rcCost is the cost of some work in a child.
type rcCost struct {
	Secrets     int   `json:"secrets"`
	All         int   `json:"all"`
	SecretBytes int64 `json:"secretBytes"`
	AllBytes    int64 `json:"allBytes"`
	CPUNs       int64 `json:"cpuNs"`
	DriverCPUNs int64 `json:"driverCpuNs"` // inside the driver's calls
	Alloc       int64 `json:"alloc"`
	WallNs      int64 `json:"wallNs"`
	Decodes     int64 `json:"decodes"`    // by the cached read path
	WatchBytes  int64 `json:"watchBytes"` // received on watches meanwhile
}

func (c *rcCost) add(d rcCost) {
	c.Secrets += d.Secrets
	c.All += d.All
	c.SecretBytes += d.SecretBytes
	c.AllBytes += d.AllBytes
	c.CPUNs += d.CPUNs
	c.DriverCPUNs += d.DriverCPUNs
	c.Alloc += d.Alloc
	c.WallNs += d.WallNs
	c.Decodes += d.Decodes
	c.WatchBytes += d.WatchBytes
}

// reconcileChild is the child's main: it builds the read path a.Target names and
// answers the parent's requests until told to quit.
func reconcileChild(a childArgs) int {
	if err := runReconcileChild(a, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "bench child reconcile %s: %v\n", a.Target, err)
		return 1
	}
	return 0
}

func runReconcileChild(a childArgs, in io.Reader, out io.Writer) error {
	// controller-runtime's cache logs through its own logger: nothing to say here.
	crlog.SetLogger(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fleet rcFleetFile
	b, err := os.ReadFile(a.Fleet)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &fleet); err != nil {
		return err
	}
	exts, charts, err := loadFleet(fleet)
	if err != nil {
		return err
	}
	heap0 := int64(liveHeap())
	p, err := newReadPath(ctx, a.Kubeconfig, fleet.Namespace, a.Target)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	sc := bufio.NewScanner(in)
	first := true
	for sc.Scan() {
		var req rcRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return err
		}
		var ans rcAnswer
		switch req.Op {
		case "quit":
			return nil
		case "heap":
			ans.Heap = int64(liveHeap()) - heap0
			if p.rc != nil {
				st := p.rc.Stats()
				ans.Cache = &st
			}
		case "reconcile":
			ans.rcCost, ans.Changed, err = p.reconcile(ctx, exts[req.Ext], charts[req.Ext], fleet.Revisions)
			if err != nil {
				ans.Err = err.Error()
			}
		default:
			return fmt.Errorf("unknown request %q", req.Op)
		}
		if first {
			ans.Startup, first = &p.startup, false
		}
		runtime.KeepAlive(charts)
		if err := enc.Encode(ans); err != nil {
			return err
		}
	}
	return sc.Err()
}

// loadFleet reads the ClusterExtensions and their charts.
func loadFleet(f rcFleetFile) ([]*unstructured.Unstructured, []*chart.Chart, error) {
	var exts []*unstructured.Unstructured
	var charts []*chart.Chart
	for _, e := range f.Exts {
		u := adoption.ClusterExtension(e.Name, e.Namespace)
		u.SetUID(types.UID(e.UID))
		exts = append(exts, u)
		b, err := os.ReadFile(e.ChartFile)
		if err != nil {
			return nil, nil, err
		}
		ch := &chart.Chart{}
		if err := json.Unmarshal(b, ch); err != nil {
			return nil, nil, fmt.Errorf("chart of %s: %w", e.Name, err)
		}
		charts = append(charts, ch)
	}
	return exts, charts, nil
}

// readPath is one way of reading release records, wired into helm-operator-plugins'
// ActionClientGetter as OLMv1 wires its own.
type readPath struct {
	acg     helmclient.ActionClientGetter
	rc      *storage.ReleaseCache // the cached read path's, or nil
	count   *reqCounter
	drv     *driverCPU
	startup rcCost
}

// readPaths are the configurations the benchmark compares, by name. A path that
// keeps what it reads warms up on the whole fleet, so that its passes measure
// its steady state; the others warm up on two extensions.
var readPaths = []struct {
	name, label string
	warmAll     bool
}{
	{"original-live", "(a) helm-operator-plugins v0.9.1, live reads", false},
	{"chunkview-live", "(b) chunkview, live reads", false},
	{"chunkview-cache", "(c) chunkview over controller-runtime's cache", false},
	{"chunkview-releasecache", "(d) chunkview, cached read path, default bounds", true},
	{"chunkview-releasecache-slices", "(d2) chunkview, cached read path, every slice held", true},
	{"chunkview-releasecache-all", "(d3) chunkview, cached read path, every slice and release held", true},
}

// releaseCacheOptions are the bounds of the cached read paths: the defaults; room
// for every slice of the fleet (its stored bytes) with the default room for
// decoded releases; room for both.
var releaseCacheOptions = map[string]storage.ReleaseCacheOptions{
	"chunkview-releasecache":        {},
	"chunkview-releasecache-slices": {MaxChunkBytes: 8 << 30},
	"chunkview-releasecache-all":    {MaxChunkBytes: 8 << 30, MaxReleaseBytes: 32 << 30},
}

func newReadPath(ctx context.Context, kubeconfig, ns, name string) (*readPath, error) {
	cfg, err := restConfigFrom(kubeconfig)
	if err != nil {
		return nil, err
	}
	// The benchmark measures the work, not client-side throttling.
	cfg.QPS, cfg.Burst = 1000, 2000
	p := &readPath{count: &reqCounter{}, drv: &driverCPU{}}
	cfg.Wrap(p.count.wrap)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var reader client.Reader
	newDriver := adoption.Chunkview(adoption.Owner, adoption.OLMConfig())
	switch name {
	case "original-live":
		newDriver = adoption.Original(adoption.Owner, adoption.OLMConfig())
		fallthrough
	case "chunkview-live":
		// The manager's API reader.
		if reader, err = client.New(cfg, client.Options{}); err != nil {
			return nil, err
		}
	case "chunkview-cache":
		c, cost, err := startSecretCache(ctx, kubeconfig, ns)
		if err != nil {
			return nil, err
		}
		reader, p.startup = c, cost
	case "chunkview-releasecache", "chunkview-releasecache-slices", "chunkview-releasecache-all":
		// The cache lists and watches on the counted connection, on the first
		// read (the warm-up); reads it cannot serve go to the API reader.
		p.rc = storage.NewReleaseCache(cs.CoreV1(), releaseCacheOptions[name])
		go func() { _ = p.rc.Start(ctx) }()
		if !p.rc.WaitForStart(ctx) {
			return nil, errors.New("the release cache did not start")
		}
		dc := adoption.OLMConfig()
		dc.Cache = p.rc.Namespace(ns)
		newDriver = adoption.Chunkview(adoption.Owner, dc)
		if reader, err = client.New(cfg, client.Options{}); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown read path %q", name)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	rm, err := apiutil.NewDynamicRESTMapper(cfg, hc)
	if err != nil {
		return nil, err
	}
	timed := func(s secretsClient) driver.Driver { return &timedDriver{Driver: newDriver(s), cpu: p.drv} }
	acg, err := helmclient.NewActionConfigGetter(cfg, rm,
		helmclient.StorageDriverMapper(adoption.DriverMapper(adoption.Secrets(reader, cs.CoreV1(), ns), timed)),
		helmclient.ClientNamespaceMapper(func(o client.Object) (string, error) {
			ns, _, err := unstructured.NestedString(o.(*unstructured.Unstructured).Object, "spec", "namespace")
			return ns, err
		}),
	)
	if err != nil {
		return nil, err
	}
	if p.acg, err = helmclient.NewActionClientGetter(acg, helmclient.WithFailureRollbacks(false)); err != nil {
		return nil, err
	}
	return p, nil
}

// startSecretCache starts a controller-runtime cache of every Secret of ns, as
// operator-controller's manager keeps one, on a connection of its own, and returns
// it synced, with what its list and watch cost.
func startSecretCache(ctx context.Context, kubeconfig, ns string) (cache.Cache, rcCost, error) {
	cfg, err := restConfigFrom(kubeconfig)
	if err != nil {
		return nil, rcCost{}, err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	count := &reqCounter{}
	cfg.Wrap(count.wrap)
	c, err := cache.New(cfg, cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		return nil, rcCost{}, err
	}
	go func() {
		if err := c.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "cache:", err)
		}
	}()
	if _, err := c.GetInformer(ctx, &corev1.Secret{}); err != nil {
		return nil, rcCost{}, err
	}
	if !c.WaitForCacheSync(ctx) {
		return nil, rcCost{}, errors.New("the Secret cache did not sync")
	}
	return c, count.snapshot(), nil
}

// reconcile runs OLMv1's steady-state reconcile of ext and returns its cost.
func (p *readPath) reconcile(ctx context.Context, ext *unstructured.Unstructured, ch *chart.Chart, revs int) (rcCost, bool, error) {
	ns, _, _ := unstructured.NestedString(ext.Object, "spec", "namespace")
	c0, d0, dec0, cpu0 := p.count.snapshot(), p.drv.load(), p.decodes(), processCPU()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc0 := ms.TotalAlloc
	start := time.Now()
	o, err := adoption.Reconcile(ctx, p.acg, ext, ns, ch, map[string]interface{}{})
	wall := time.Since(start)
	cpu := processCPU() - cpu0
	runtime.ReadMemStats(&ms)
	c := p.count.snapshot().minus(c0)
	c.CPUNs, c.DriverCPUNs = int64(cpu), int64(p.drv.load()-d0)
	c.Alloc, c.WallNs, c.Decodes = int64(ms.TotalAlloc-alloc0), int64(wall), p.decodes()-dec0
	if err != nil {
		return c, false, err
	}
	if len(o.History) != revs || o.Current.Version != revs || o.Current.Info.Status != release.StatusDeployed || o.Desired.Version != revs+1 {
		return c, false, fmt.Errorf("%s: read %d revisions, current %d %s, dry run %d; want %d, %d deployed, %d",
			ext.GetName(), len(o.History), o.Current.Version, o.Current.Info.Status, o.Desired.Version, revs, revs, revs+1)
	}
	return c, o.Desired.Manifest != o.Current.Manifest, nil
}

// decodes is how many records the cached read path has decoded, or 0.
func (p *readPath) decodes() int64 {
	if p.rc == nil {
		return 0
	}
	return p.rc.Stats().Decodes
}

// processCPU is this process's user and system time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reqCounter counts the requests of a connection and the response bytes read,
// those on Secrets apart, and a watch's bytes apart from both.
type reqCounter struct {
	all, secrets           atomic.Int64
	allBytes, secretsBytes atomic.Int64
	watchBytes             atomic.Int64 // received on watches, counted in neither
}

func (r *reqCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		// A watch's bytes arrive whenever the server sends an event or a
		// bookmark, not in answer to a read: they are counted apart.
		watch := req.URL.Query().Get("watch") == "true"
		secret := strings.Contains(req.URL.Path, "/secrets") && !watch
		r.all.Add(1)
		if secret {
			r.secrets.Add(1)
		}
		resp, err := rt.RoundTrip(req)
		if resp != nil && resp.Body != nil {
			b := &countedBody{ReadCloser: resp.Body, all: &r.allBytes}
			switch {
			case watch:
				b.all = &r.watchBytes
			case secret:
				b.secrets = &r.secretsBytes
			}
			resp.Body = b
		}
		return resp, err
	})
}

func (r *reqCounter) snapshot() rcCost {
	return rcCost{Secrets: int(r.secrets.Load()), All: int(r.all.Load()), SecretBytes: r.secretsBytes.Load(), AllBytes: r.allBytes.Load(), WatchBytes: r.watchBytes.Load()}
}

func (c rcCost) minus(d rcCost) rcCost {
	return rcCost{Secrets: c.Secrets - d.Secrets, All: c.All - d.All, SecretBytes: c.SecretBytes - d.SecretBytes, AllBytes: c.AllBytes - d.AllBytes, WatchBytes: c.WatchBytes - d.WatchBytes}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type countedBody struct {
	io.ReadCloser
	all, secrets *atomic.Int64 // secrets is nil for other requests
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.all.Add(int64(n))
	if b.secrets != nil {
		b.secrets.Add(int64(n))
	}
	return n, err
}
