package ops

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	helmkube "helm.sh/helm/v3/pkg/kube"
	kube4 "helm.sh/helm/v4/pkg/kube"

	"github.com/chunkview/chunkview/kube"
)

// HelmFieldManager is the field manager Helm's CLIs write managed fields under
// (both set their kube package's ManagedFieldsManager to it). Resources chunkview
// applies through Helm's actions carry the same manager, unless a server-side
// rollback applies as the manager that owns the release's objects (a Helm 4 SDK
// program's, Flux's helm-controller: see ServerSide), so that a server-side
// apply neither conflicts with the writer's own fields nor takes them over.
const HelmFieldManager = "helm"

func init() {
	// Left empty, Helm's kube clients name the manager after the binary
	// ("chunkview"): a server-side rollback would then conflict with "helm" on
	// every field it applies.
	helmkube.ManagedFieldsManager = HelmFieldManager
	kube4.ManagedFieldsManager = HelmFieldManager
}

// Appliers builds the Helm kube clients that apply and delete the resources of a
// release whose resources live in namespace ns: one for Helm 3's actions and one
// for Helm 4's. An operation uses the one of the Helm that runs it.
type Appliers interface {
	Helm3(ns string) (helmkube.Interface, error)
	Helm4(ns string) (kube4.Interface, error)
}

// restAppliers builds Helm's kube clients from the connection flags, as helm's
// CLIs do: every client they make gets chunkview's wrappers (see
// kube.Options.Connect).
type restAppliers struct {
	getter genericclioptions.RESTClientGetter
}

func (a restAppliers) Helm3(ns string) (helmkube.Interface, error) {
	kc := helmkube.New(a.getter)
	kc.Namespace = ns
	return kc, nil
}

func (a restAppliers) Helm4(ns string) (kube4.Interface, error) {
	kc := kube4.New(a.getter)
	kc.Namespace = ns
	// Helm 4's client logs through slog's default handler unless told
	// otherwise; the operation that uses it sets its own.
	return kc, nil
}

// Helm4As is Helm4 for a client that applies under field manager manager
// rather than Helm's: see managerTransport.
func (a restAppliers) Helm4As(ns, manager string) (kube4.Interface, error) {
	kc := kube4.New(managedGetter{RESTClientGetter: a.getter, manager: manager})
	kc.Namespace = ns
	return kc, nil
}

// managedAppliers are Appliers that can build a Helm 4 kube client applying
// under a field manager of the caller's choice, and whose objects can be read
// (the demo's apply nothing and read nothing).
type managedAppliers interface {
	Appliers
	Helm4As(ns, manager string) (kube4.Interface, error)
}

// managedGetter is a RESTClientGetter whose clients send every write under
// field manager manager.
type managedGetter struct {
	genericclioptions.RESTClientGetter
	manager string
}

func (g managedGetter) ToRESTConfig() (*rest.Config, error) {
	rc, err := g.RESTClientGetter.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	rc = rest.CopyConfig(rc)
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return managerTransport{next: rt, manager: g.manager} })
	return rc, nil
}

// managerTransport names field manager manager on every request that names
// one. Helm 4's kube client takes its manager from a process-wide variable
// (ManagedFieldsManager, read at each request), which one operation cannot set
// for itself without racing another; its requests all pass through the
// client's transport, which can.
type managerTransport struct {
	next    http.RoundTripper
	manager string
}

func (t managerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	if !q.Has("fieldManager") || q.Get("fieldManager") == t.manager {
		return t.next.RoundTrip(req)
	}
	q.Set("fieldManager", t.manager)
	out := req.Clone(req.Context())
	out.URL.RawQuery = q.Encode()
	return t.next.RoundTrip(out)
}

// NewAppliers returns the Appliers that build Helm's kube clients from getter, as
// the operations do over a connection kube.Options.Connect made.
func NewAppliers(getter genericclioptions.RESTClientGetter) Appliers { return restAppliers{getter} }

// appliersOf returns the Appliers of connection c: those c carries (the
// demo's), else Helm's clients built from c's connection flags; nil when c can
// do neither.
func appliersOf(c *kube.Client) Appliers {
	switch a := c.ApplySource().(type) {
	case Appliers:
		return a
	case genericclioptions.RESTClientGetter:
		return NewAppliers(connGetter{RESTClientGetter: a, c: c})
	}
	return nil
}

// connGetter is the connection flags of c as Helm's kube clients read them,
// with the discovery of c: Helm's RESTMapper maps kinds through c's cached
// discovery, and its reads of the server's version are answered from c's (see
// kube.Client.FreshDiscovery), so that an operation reads discovery once, not
// once for chunkview and once for Helm.
type connGetter struct {
	genericclioptions.RESTClientGetter
	c *kube.Client
}

func (g connGetter) ToRESTConfig() (*rest.Config, error) {
	rc, err := g.RESTClientGetter.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	rc = rest.CopyConfig(rc)
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return versionTransport{next: rt, c: g.c} })
	return rc, nil
}

func (g connGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	if lc, err := g.c.Live(); err == nil && lc.Discovery != nil {
		return lc.Discovery, nil
	}
	return g.RESTClientGetter.ToDiscoveryClient()
}

func (g connGetter) ToRESTMapper() (meta.RESTMapper, error) {
	if lc, err := g.c.Live(); err == nil && lc.Mapper != nil && lc.Discovery != nil {
		return lc.Mapper, nil
	}
	return g.RESTClientGetter.ToRESTMapper()
}

// versionTransport answers a GET of the server's version (Helm's reachability
// check, its capabilities) from the connection's discovery pass; every other
// request, and that one when the pass cannot answer, goes to next.
type versionTransport struct {
	next http.RoundTripper
	c    *kube.Client
}

func (t versionTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || path.Base(req.URL.Path) != "version" || strings.Contains(req.URL.Path, "/api") {
		return t.next.RoundTrip(req)
	}
	v, err := t.c.ServerVersion()
	if err != nil {
		return t.next.RoundTrip(req)
	}
	body, err := json.Marshal(v)
	if err != nil {
		return t.next.RoundTrip(req)
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req}, nil
}
