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
package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/chunkview/chunkview/storage"
)

// Stuck reports whether the revision r, in flight (see InFlight), has been so
// for StuckAfter or longer (stuck: no operation is likely to finish it), or for
// less (inProgress: one probably runs). Both are false for any other status.
func (c *Client) Stuck(r RevisionRow) (stuck, inProgress bool) {
	if !InFlight(r.Status) {
		return false, false
	}
	if c.Now().Sub(r.Updated) >= c.StuckAfter() {
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

// secretsGVR is the resource the metadata client lists.
var secretsGVR = corev1.SchemeGroupVersion.WithResource("secrets")

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

// rowOf reads a revision row off index metadata.
func rowOf(m *metav1.PartialObjectMetadata) RevisionRow {
	names, namesKnown := storage.ChunkNamesFromMeta(m)
	r := RevisionRow{
		chunkNames:       names,
		chunkNamesKnown:  namesKnown,
		StorageNamespace: m.Namespace,
		Status:           m.Labels[storage.LabelStatus],
		Key:              m.Name,
		ResourceVersion:  m.ResourceVersion,
		Driver:           DriverChunked,
		ControlledBy:     controlledBy(m),
		Labels:           customLabelsOf(m),
	}
	r.Name, r.Revision = nameAndRevision(m)
	r.Written = writtenAt(m)
	if s, ok := storage.SummaryFromMeta(m); ok {
		r.Summary, r.Known = s, true
	}
	r.settle()
	return r
}

// nameAndRevision reads a record's release name and revision from its labels,
// or from its key (sh.helm.release.v1.NAME.vN) where a label is missing.
func nameAndRevision(m metav1.Object) (string, int) {
	name := m.GetLabels()[storage.LabelName]
	rev, _ := strconv.Atoi(m.GetLabels()[storage.LabelVersion])
	if n, v, ok := storage.ParseKey(m.GetName()); ok {
		if name == "" {
			name = n
		}
		if rev == 0 {
			rev = v
		}
	}
	return name, rev
}

// Releases lists the releases in view, one row each with its latest revision, from
// every store the configuration reads (see Config.Drivers). A release held by two
// stores is two rows. It reads metadata, plus, for Helm's stores, the records of
// the latest revisions (to learn their chart and size); chunked rows of records
// chunkview did not write have Known false until Details or FillDetails decodes
// them.
//
// When listing across all namespaces is forbidden, it lists the namespaces the user
// may read instead (the context's and those of --namespaces) and returns their rows
// with a *PartialError that says what was left out. A store the user may not read
// at all is skipped when others were read, with a *StoreSkipError.
func (c *Client) Releases(ctx context.Context) ([]ReleaseRow, error) {
	return c.releases(ctx, "", false, c.cfg.inView)
}

// ReleasesNamed finds, as Releases lists, the releases called name: one row for
// each store and storage namespace that holds one, from metadata selected by that
// name, so that a command by name costs what its release does, not what the
// cluster holds. Rows of Helm's stores are not summarized. A record without its
// name label (written by hand) is not found here; History still finds it.
func (c *Client) ReleasesNamed(ctx context.Context, name string) ([]ReleaseRow, error) {
	return c.releases(ctx, name, true, c.cfg.inView)
}

// releases lists the releases as Releases does; with -n it keeps those whose
// latest revision keep accepts.
func (c *Client) releases(ctx context.Context, name string, light bool, keep func(RevisionRow) bool) ([]ReleaseRow, error) {
	var (
		all      []ReleaseRow
		partials []error
		skipped  = map[string]error{}
		read     int
	)
	stores := c.stores()
	for _, s := range stores {
		rows, err := s.releases(ctx, name, light)
		if errors.Is(err, ErrPartial) {
			// Every store falls back to the same readable namespaces: one
			// note says it for all.
			if len(partials) == 0 {
				partials = append(partials, err)
			}
			err = nil
		}
		if err != nil {
			if len(stores) > 1 && errors.Is(err, ErrForbidden) {
				skipped[s.name()] = err
				continue
			}
			return nil, err
		}
		read++
		all = append(all, rows...)
	}
	if read == 0 {
		for _, d := range c.cfg.drivers() {
			if err := skipped[d]; err != nil {
				return nil, err
			}
		}
	}
	if len(skipped) > 0 {
		partials = append(partials, &StoreSkipError{Skipped: skipped})
	}
	// Narrow to the namespace in view by where the latest revision's resources
	// live. A release is judged as a whole, never by revision, so that its count
	// and latest revision stay right.
	narrow := !c.cfg.AllNamespaces && c.cfg.Namespace != ""
	out := make([]ReleaseRow, 0, len(all))
	for _, rr := range all {
		c.reader.applyCached(&rr.Latest)
		for i := range rr.History {
			c.reader.applyCached(&rr.History[i])
		}
		if narrow && !keep(rr.Latest) {
			continue
		}
		out = append(out, rr)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Latest, out[j].Latest
		if a.StorageNamespace != b.StorageNamespace {
			return a.StorageNamespace < b.StorageNamespace
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return slices.Index(AllDrivers, a.driver()) < slices.Index(AllDrivers, b.driver())
	})
	return out, errors.Join(partials...)
}

// History lists the revisions of one release, oldest first, from the store that
// holds it. A release held by more than one of the stores read is refused with
// ErrAmbiguous: --driver (WithDrivers) picks one.
func (c *Client) History(ctx context.Context, ns, name string) ([]RevisionRow, error) {
	return c.history(ctx, ns, name, false)
}

// Versions lists the revisions of one release as History does, from metadata
// alone: what a plan's check and a look at the statuses need.
func (c *Client) Versions(ctx context.Context, ns, name string) ([]RevisionRow, error) {
	return c.versions(ctx, ns, name)
}

func (c *Client) versions(ctx context.Context, ns, name string) ([]RevisionRow, error) {
	return c.history(ctx, ns, name, true)
}

func (c *Client) history(ctx context.Context, ns, name string, light bool) ([]RevisionRow, error) {
	var (
		found    []RevisionRow
		holders  []string
		refused  error
		answered int
	)
	for _, s := range c.stores() {
		sns := c.cfg.storeNamespaceFor(s.name(), ns)
		rows, err := s.history(ctx, sns, name, light)
		if err != nil {
			if errors.Is(err, ErrForbidden) && len(c.cfg.drivers()) > 1 {
				refused = err
				continue
			}
			return nil, err
		}
		answered++
		if len(rows) > 0 {
			found, holders = rows, append(holders, s.name())
		}
	}
	switch {
	case len(holders) > 1:
		return nil, fmt.Errorf("%w: %q is stored by %s; pass --driver %s (or another) to pick one",
			ErrAmbiguous, name, strings.Join(holders, " and "), holders[0])
	case len(holders) == 0 && refused != nil && answered == 0:
		return nil, refused
	case len(holders) == 0 && refused != nil:
		return nil, fmt.Errorf("%w (and a store could not be read: %v)", c.cfg.notFound(name, c.cfg.storageNamespaceFor(ns)), refused)
	case len(holders) == 0:
		return nil, c.cfg.notFound(name, c.cfg.storageNamespaceFor(ns))
	}
	for i := range found {
		c.reader.applyCached(&found[i])
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Revision < found[j].Revision })
	return found, nil
}

// Revision returns the row of one revision; rev 0 means the latest.
func (c *Client) Revision(ctx context.Context, ns, name string, rev int) (RevisionRow, error) {
	rows, err := c.History(ctx, ns, name)
	if err != nil {
		return RevisionRow{}, err
	}
	return PickRevision(rows, name, rev)
}

// PickRevision returns revision rev of rows, the history of release name; rev 0
// means the latest.
func PickRevision(rows []RevisionRow, name string, rev int) (RevisionRow, error) {
	if rev == 0 {
		return rows[len(rows)-1], nil
	}
	for _, r := range rows {
		if r.Revision == rev {
			return r, nil
		}
	}
	return RevisionRow{}, fmt.Errorf("%w: release %q has no revision %d (it has %d..%d)", ErrNotFound, name, rev, rows[0].Revision, rows[len(rows)-1].Revision)
}

// writtenAt returns when a record was last written: its modifiedAt label, else its
// createdAt label, else the Secret's creation time.
func writtenAt(m metav1.Object) time.Time {
	for _, l := range []string{storage.LabelModifiedAt, storage.LabelCreatedAt} {
		if sec, err := strconv.ParseInt(m.GetLabels()[l], 10, 64); err == nil && sec > 0 {
			return time.Unix(sec, 0)
		}
	}
	return m.GetCreationTimestamp().Time
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
