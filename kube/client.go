// Package kube connects to clusters the way kubectl does (kubeconfig, context,
// namespace and storage flags: Options, Connect) and reads the release records of
// every store Helm keeps them in: the chunked driver's Secrets and Helm's own
// Secrets and ConfigMaps drivers. A Client lists releases and their history from
// metadata, decodes revisions through a bounded cache (Details), inspects and
// verifies how they are stored, finds and removes leftover chunks, and watches
// the records for changes.
//
// It reads and never plans: the operations are kube/ops's, the objects a release
// runs are read by kube/live, and its controllers by kube/owner; each takes the
// Client through a small interface of its own. The CLI and the TUI call them all;
// kube calls storage.
//
// Its files read from the bottom up: none uses a name declared in a file that
// uses one of its own (go run ./hack/arrows ./kube counts the arrows that
// would). errors.go, drivers.go and types.go hold the words every file uses;
// config.go, writing.go and options.go the configuration; records.go, groups.go,
// fill.go and listing.go read rows off metadata; client.go is the Client and its
// copies, reader.go the decoded revisions they share. store.go says what a store
// does, store_chunked.go and store_helm.go are the two kinds, stores.go picks
// those the configuration reads; releases.go, details.go and summaries.go list
// and decode across them. The checks, the watch and the connection (health.go,
// verify.go, watch.go, connect.go and the like) stand on all of it.
package kube

import (
	"slices"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/chunkview/chunkview/storage"
)

// Stuck reports whether the revision r, in flight (see InFlight), has been so
// at now for after or longer (stuck: no operation is likely to finish it), or
// for less (inProgress: one probably runs). Both are false for any other
// status. A client's judgement is Stuck(r, c.Now(), c.StuckAfter()).
func Stuck(r RevisionRow, now time.Time, after time.Duration) (stuck, inProgress bool) {
	if !InFlight(r.Status) {
		return false, false
	}
	if now.Sub(r.Updated) >= after {
		return true, false
	}
	return false, true
}

// StuckAfter returns how long a revision may stay pending before it is stuck.
func (c *Client) StuckAfter() time.Duration {
	if c.cfg.StuckAfter > 0 {
		return c.cfg.StuckAfter
	}
	return DefaultStuckAfter
}

// Client is a connection to one cluster with chunkview's configuration.
type Client struct {
	cfg Config
	cs  kubernetes.Interface
	md  metadata.Interface
	// apply is what kube/ops builds the Helm kube clients of an operation from
	// (see ApplySource); nil on a connection that cannot apply.
	apply ApplySource
	// dyn reads OLMv1's ClusterExtensions; nil leaves them unread.
	dyn dynamic.Interface

	// reader decodes revisions and keeps them; copies of the client share it.
	reader *reader
	// live reads release objects as they are in the cluster (see Live); nil on a
	// connection that cannot, such as the demo's.
	live *liveSource
}

// ApplySource is what kube/ops builds the Helm kube clients that apply and delete
// a release's resources from: a genericclioptions.RESTClientGetter (the
// connection flags, as Connect passes them), or a value of kube/ops's Appliers
// (the demo's, which apply nothing). kube only carries it, so that reading a
// cluster needs none of Helm's kube clients.
type ApplySource any

// New returns a Client over the given clients. apply is handed to the operations
// (see ApplySource); nil disables the operations that apply or delete release
// resources.
func New(cs kubernetes.Interface, md metadata.Interface, apply ApplySource, cfg Config) *Client {
	if cfg.Owner == "" {
		cfg.Owner = storage.HelmOwner
	}
	if cfg.Driver.Now == nil {
		// The records' labels and the pending lease are dated by the same
		// clock as the ages measured from them.
		cfg.Driver.Now = cfg.Now
	}
	size := cfg.DetailsCacheBytes
	if size == 0 {
		size = DefaultDetailsCacheBytes
	}
	return &Client{cfg: cfg, cs: cs, md: md, apply: apply, reader: &reader{cache: newDetailsCache(size)}}
}

// Now returns the current time as the configuration tells it (Config.Now).
func (c *Client) Now() time.Time { return c.cfg.now() }

// ApplySource returns what the client was made with to apply release resources
// (see New); nil for a connection that cannot.
func (c *Client) ApplySource() ApplySource { return c.apply }

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// ReadOnly reports whether mutating operations are refused.
func (c *Client) ReadOnly() bool { return c.cfg.ReadOnly }

// Clientset returns the typed clientset.
func (c *Client) Clientset() kubernetes.Interface { return c.cs }

// Dynamic returns the dynamic client that reads the controllers' objects
// (kube/owner); nil on a connection without one, such as the demo's.
func (c *Client) Dynamic() dynamic.Interface { return c.dyn }

// Metadata returns the metadata client; nil on a connection without one.
func (c *Client) Metadata() metadata.Interface { return c.md }

// WithNamespace returns a copy of c looking at namespace ns ("" with all set: every
// namespace). The details cache is shared.
func (c *Client) WithNamespace(ns string, all bool) *Client {
	cp := *c
	cp.cfg.Namespace, cp.cfg.AllNamespaces = ns, all
	return &cp
}

// withDynamic returns a copy of c that reads OLMv1's objects (see
// ClusterExtension) through dyn. The details cache is shared.
func (c *Client) withDynamic(dyn dynamic.Interface) *Client {
	cp := *c
	cp.dyn = dyn
	return &cp
}

// Live returns the clients that read release objects as they are in the
// cluster, built on first use (discovery); ErrNoLive on a connection that
// cannot, such as the demo's.
func (c *Client) Live() (*LiveClients, error) {
	if c.live == nil {
		return nil, ErrNoLive
	}
	return c.live.get()
}

// Drivers returns the stores the client reads (Config.Drivers; the chunked
// store alone when unset).
func (c *Client) Drivers() []string { return c.cfg.drivers() }

// WithDrivers returns a copy of c that reads only the stores named (DriverX
// values); the details cache is shared. A screen opening one release's history
// narrows to the store its row came from.
func (c *Client) WithDrivers(ds ...string) *Client {
	cp := *c
	cp.cfg.Drivers = slices.Clone(ds)
	return &cp
}

// WithLive returns a copy of c that reads live objects, and the controllers'
// objects (Flux's HelmReleases, OLMv1's ClusterExtensions), through the clients
// build returns, built on first use like Connect's: the demo's in-memory
// cluster, whose objects are made when they are first looked at. dyn is the
// dynamic client the controllers are read through at once. The details cache
// is shared.
func (c *Client) WithLive(dyn dynamic.Interface, build func() (*LiveClients, error)) *Client {
	cp := c.withDynamic(dyn)
	cp.live = &liveSource{build: build}
	return cp
}
