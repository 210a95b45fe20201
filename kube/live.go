package kube

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	memory "k8s.io/client-go/discovery/cached"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// ErrNoLive is returned by Live (and kube/live's reads) on a connection that
// cannot read the objects of releases: an in-memory cluster made with New alone
// (the UI tests' fixtures, which hold release records only; the demo's has its
// live objects, see WithLive).
var ErrNoLive = errors.New("live objects are not available on this connection: it reaches the release records only, not the objects they deploy")

// LiveClients read objects of any kind as they are in the cluster: what
// kube/live reads release objects, their status, events and logs through.
type LiveClients struct {
	Dynamic  dynamic.Interface
	Metadata metadata.Interface
	Mapper   meta.RESTMapper
	// Discovery is the memory-cached discovery the mapper reads, which
	// Checker.ServedAPIs reads too: one discovery pass serves both. Nil when
	// the connection has none of its own.
	Discovery discovery.CachedDiscoveryInterface
}

// liveSource builds the live clients once, on first use: commands that never
// look at live objects pay no discovery.
type liveSource struct {
	once  sync.Once
	build func() (*LiveClients, error)
	lc    *LiveClients
	err   error
	// warm is set once ServedAPIs filled the cached discovery, or
	// FreshDiscovery started a pass, until InvalidateDiscovery:
	// Client.Discovery then answers from it.
	warm atomic.Bool

	// version is the server's version, read once per discovery pass.
	vmu     sync.Mutex
	version *version.Info
}

// serverVersion returns the version this pass read, reading it through dc
// the first time. A connection without live objects (s nil) keeps no pass:
// it reads through dc each time.
func (s *liveSource) serverVersion(dc discovery.DiscoveryInterface) (*version.Info, error) {
	if s == nil {
		return dc.ServerVersion()
	}
	s.vmu.Lock()
	defer s.vmu.Unlock()
	if s.version != nil {
		return s.version, nil
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return nil, err
	}
	s.version = v
	return v, nil
}

// forgetVersion makes the next serverVersion read the version again.
func (s *liveSource) forgetVersion() {
	s.vmu.Lock()
	s.version = nil
	s.vmu.Unlock()
}

func (s *liveSource) get() (*LiveClients, error) {
	s.once.Do(func() { s.lc, s.err = s.build() })
	return s.lc, s.err
}

// liveFromConfig reads live objects through rc: a dynamic client, the metadata
// client, and a RESTMapper over a memory-cached discovery client.
func liveFromConfig(rc *rest.Config, md metadata.Interface) *liveSource {
	return &liveSource{build: func() (*LiveClients, error) {
		dyn, err := dynamic.NewForConfig(rc)
		if err != nil {
			return nil, fmt.Errorf("build dynamic client: %w", err)
		}
		dc, err := discovery.NewDiscoveryClientForConfig(rc)
		if err != nil {
			return nil, fmt.Errorf("build discovery client: %w", err)
		}
		disc := memory.NewMemCacheClient(dc)
		return &LiveClients{Dynamic: dyn, Metadata: md, Mapper: restmapper.NewDeferredDiscoveryRESTMapper(disc), Discovery: disc}, nil
	}}
}

// NewLiveClients returns live clients over dyn and md that map kinds to
// resources through dc's discovery, memory-cached, as Connect's do: for a
// connection made otherwise, such as the demo's in-memory cluster (WithLive).
func NewLiveClients(dyn dynamic.Interface, md metadata.Interface, dc discovery.DiscoveryInterface) *LiveClients {
	disc := memory.NewMemCacheClient(dc)
	return &LiveClients{Dynamic: dyn, Metadata: md, Mapper: restmapper.NewDeferredDiscoveryRESTMapper(disc), Discovery: disc}
}
