package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
)

// The demo's contexts: two in-memory clusters, so that switching contexts can be
// tried without a kubeconfig.
const (
	// DemoContext is the demo's first cluster, with every sample release.
	DemoContext = "demo"
	// DemoStagingContext is a second, smaller cluster: a few of the samples,
	// undamaged.
	DemoStagingContext = "demo-staging"
)

// demoStagingSamples are the releases of the demo-staging cluster.
var demoStagingSamples = []string{"podinfo", "web-frontend", "payments-api", "cert-manager", demo.RedisRelease}

// demoClient returns a client over a fresh in-memory demo cluster seeded with the
// sample releases and the objects they run (see demo's liveStories), with the
// controllers of some (a Flux HelmRelease, OLMv1's ClusterExtensions). Helm's kube
// client applies nothing there: an operation changes the records alone. Without -n it looks at every namespace; the storage
// flags apply as on a cluster (--profile olmv1 shows the OLMv1 samples), except that
// the chunk limits default to those the samples were written with. A simulated
// operator upgrades podinfo every 15-20 s (CHUNKVIEW_DEMO_OPERATOR=2s or off
// changes that).
func (r *run) demoClient(ctx context.Context) (*kube.Client, error) {
	return r.demoContext(ctx, r.demoContextName())
}

// demoContextName is the demo context --context names, DemoContext by default.
func (r *run) demoContextName() string {
	if f := r.opts.Flags.Context; f != nil && *f != "" {
		return *f
	}
	return DemoContext
}

// demoContext returns a client over a fresh in-memory cluster of the demo context
// name: DemoContext or DemoStagingContext.
func (r *run) demoContext(ctx context.Context, name string) (*kube.Client, error) {
	cfg, err := r.opts.Resolve()
	if err != nil {
		return nil, err
	}
	dc := demo.DriverConfig()
	if !r.flags.Changed("chunk-size") {
		cfg.Driver.ChunkSize = dc.ChunkSize
	}
	if !r.flags.Changed("max-read-chunks") {
		cfg.Driver.MaxReadChunks = dc.MaxReadChunks
	}
	if !r.flags.Changed("max-write-chunks") {
		cfg.Driver.MaxWriteChunks = dc.MaxWriteChunks
	}
	if ns := r.opts.Flags.Namespace; ns != nil && *ns != "" {
		cfg.Namespace = *ns
	} else {
		cfg.AllNamespaces = true
	}
	opOpts, operate, err := demo.ParseOperatorEnv(os.Getenv(demo.OperatorEnv))
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	seed := demo.SeedOptions{}
	switch name {
	case DemoContext:
	case DemoStagingContext:
		// The operator runs on the main demo cluster only.
		seed.Only, seed.Intact, operate = demoStagingSamples, true, false
	default:
		return nil, kube.NoContextError(name, "the demo", []string{DemoContext, DemoStagingContext})
	}
	if r.demoRelease != "" {
		operate = operate && r.demoRelease == demo.OperatorRelease
	}
	st, err := r.startDemo(ctx, name, seed)
	if err != nil {
		return nil, fmt.Errorf("start the demo cluster %s: %w", name, err)
	}
	if operate {
		// A simulated operator keeps upgrading podinfo, so that the live view
		// has something to show; it ends with the command.
		opOpts.Now = st.Clock.Now
		go demo.RunOperator(ctx, st.Cluster, opOpts)
	}
	cfg.Demo, cfg.Now = true, st.Clock.Now
	if name != DemoContext {
		cfg.Context = name
	}
	return kube.New(st.Cluster.Clientset(), st.Cluster.Metadata(), demo.DiscardKubeClients, cfg).
		WithLive(st.Cluster.Dynamic(), demoLive(st.Cluster, st.Live)), nil
}

// startDemo returns the cluster of demo context name, holding what seed
// writes: read back from its snapshot when the demo kept one (see
// demo.Snapshots), else seeded. A whole-demo command seeds every sample and
// keeps the snapshot for the next start; a command on one release writes that
// release alone, and the view opens on the quick samples and takes the rest
// as they land, then keeps the snapshot (made apart from the view's cluster,
// which the operator and the user change).
func (r *run) startDemo(ctx context.Context, name string, seed demo.SeedOptions) (*demo.Started, error) {
	snaps := demo.DefaultSnapshots(func(k string) string {
		if k == demo.CacheEnv && r.app.DemoCache != "" {
			return r.app.DemoCache
		}
		return os.Getenv(k)
	})
	if st, ok := snaps.Open(name, seed, r.app.Now); ok {
		return st, nil
	}
	if r.demoRelease == "" && !r.demoLazy {
		return snaps.Start(ctx, name, seed, r.app.Now)
	}
	whole := seed
	if r.demoRelease != "" {
		// A command on one release needs that release alone (and its damage):
		// the others would cost most of the start for nothing.
		only := []string{}
		if seed.Only == nil || slices.Contains(seed.Only, r.demoRelease) {
			only = append(only, r.demoRelease)
		}
		seed.Only = only
	}
	clock := demo.NewClock(r.now(), r.app.Now)
	cluster := fakeapi.NewCluster()
	cluster.SetClock(clock.Now)
	seed.Now, seed.Live = clock.Made(), demo.NewLive()
	st := &demo.Started{Cluster: cluster, Clock: clock, Live: seed.Live}
	if r.demoRelease != "" {
		_, err := demo.Seed(ctx, cluster, seed)
		return st, err
	}
	// The view opens at once on the quick samples; the rest follow through
	// its live watch.
	seeding, err := demo.SeedInBackground(ctx, cluster, seed)
	if err != nil {
		return nil, err
	}
	if snaps.Dir != "" {
		go func() {
			if _, err := seeding.Wait(); err == nil && ctx.Err() == nil {
				_, _ = snaps.Start(ctx, name, whole, r.app.Now)
			}
		}()
	}
	return st, nil
}

// demoLive builds the clients that read the demo cluster's live objects as
// Connect's do a cluster's: its dynamic and metadata clients, and a RESTMapper
// over its discovery, memory-cached. The samples' objects are written then,
// on first use: ls, verify and gc never pay for them.
func demoLive(cluster *fakeapi.Cluster, objects *demo.Live) func() (*kube.LiveClients, error) {
	return func() (*kube.LiveClients, error) {
		if err := objects.Start(); err != nil {
			return nil, fmt.Errorf("the demo's live objects: %w", err)
		}
		return kube.NewLiveClients(cluster.Dynamic(), cluster.Metadata(), cluster.Clientset().Discovery()), nil
	}
}

// demoContexts are the demo's two clusters, for the view to switch between. Each
// is seeded the first time it is connected to and kept: switching back finds it
// as it was left.
func (r *run) demoContexts(ctx context.Context, current *kube.Client) *kube.Contexts {
	var mu sync.Mutex
	name := r.demoContextName()
	clients := map[string]*kube.Client{name: current}
	return &kube.Contexts{
		Current: name,
		List:    func() ([]string, error) { return []string{DemoContext, DemoStagingContext}, nil },
		Connect: func(name string) (*kube.Client, error) {
			mu.Lock()
			defer mu.Unlock()
			if c, ok := clients[name]; ok {
				return c, nil
			}
			c, err := r.demoContext(ctx, name)
			if err != nil {
				return nil, err
			}
			clients[name] = c
			return c, nil
		},
	}
}
