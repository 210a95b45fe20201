package live

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// DriftOptions says how to compare a revision with the cluster.
type DriftOptions = revdiff.DriftOptions

// Drift compares revision rev of release name (0: the latest deployed) with the
// objects live in the cluster. It reads one object per resource of the
// manifest, and lists, by metadata, the objects of the same kinds labelled as
// the release's, to find extra ones. An object the user may not read is
// reported unreadable; it does not fail the rest.
func Drift(ctx context.Context, c Source, ns, name string, rev int, opts DriftOptions) (*revdiff.Drift, error) {
	// A connection without live objects says so before reading any record.
	lc, err := c.Live()
	if err != nil {
		return nil, err
	}
	row, err := driftRevision(ctx, c, ns, name, rev)
	if err != nil {
		return nil, err
	}
	rel, err := c.Decode(ctx, row)
	if err != nil {
		return nil, err
	}
	objs, notes, err := readLive(ctx, lc, rel)
	if err != nil {
		return nil, err
	}
	d, err := revdiff.CompareLive(rel, objs, opts)
	if err != nil {
		return nil, err
	}
	d.Notes = notes
	return d, nil
}

// driftRevision returns the row of revision rev, or with 0 of the latest
// deployed one: what the cluster should be running.
func driftRevision(ctx context.Context, c Source, ns, name string, rev int) (kube.RevisionRow, error) {
	if rev != 0 {
		return c.Revision(ctx, ns, name, rev)
	}
	rows, err := c.History(ctx, ns, name)
	if err != nil {
		return kube.RevisionRow{}, err
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Status == release.StatusDeployed.String() {
			return rows[i], nil
		}
	}
	return kube.RevisionRow{}, fmt.Errorf("%w: release %q has no deployed revision (the latest, %d, is %s): pass --revision to compare one",
		kube.ErrNotFound, name, rows[len(rows)-1].Revision, rows[len(rows)-1].Status)
}

// maxLiveReads bounds the object reads in flight.
const maxLiveReads = 8

// target is one manifest object, mapped to its resource.
type target struct {
	res     revdiff.Resource
	version string
	mapping *meta.RESTMapping
	ns      string
}

// readLive reads the live object of every resource of rel's manifest, and the
// extra objects labelled as rel's, for revdiff.CompareLive. notes say what
// could not be looked for.
func readLive(ctx context.Context, lc *kube.LiveClients, rel *release.Release) ([]revdiff.LiveObject, []string, error) {
	objs, targets, err := readObjects(ctx, lc, revdiff.ReleaseResources(rel.Manifest, rel.Namespace), rel.Namespace, "not compared")
	if err != nil {
		return nil, nil, err
	}
	extras, notes, err := readExtras(ctx, lc, rel, targets)
	if err != nil {
		return nil, nil, err
	}
	return append(objs, extras...), notes, nil
}

// readObjects reads the live object of each of resources, those of a release
// installed in namespace relNS, with one GET each, maxLiveReads at a time: what
// Drift and Status both look at. An object not found has no Live; one the user
// may not read, or whose kind the cluster does not serve, is Unreadable, with the
// reason (then says what that means for it), and does not fail the rest. targets[i] is the resource objs[i] was read
// from (nil when its kind is not served).
func readObjects(ctx context.Context, lc *kube.LiveClients, resources []revdiff.Resource, relNS, then string) ([]revdiff.LiveObject, []*target, error) {
	objs := make([]revdiff.LiveObject, len(resources))
	targets := make([]*target, len(resources))
	for i, r := range resources {
		objs[i].Resource = r
		var head struct {
			APIVersion string `json:"apiVersion"`
		}
		_ = yaml.Unmarshal([]byte(r.Manifest), &head)
		objs[i].APIVersion = head.APIVersion
		gvk := schema.FromAPIVersionAndKind(head.APIVersion, r.Kind)
		m, err := lc.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			if meta.IsNoMatchError(err) {
				objs[i].Unreadable = fmt.Sprintf("the cluster does not serve %s %s (is its CRD installed?)", head.APIVersion, r.Kind)
				continue
			}
			return nil, nil, kube.Explain(err, "discover", "API resources", "")
		}
		t := &target{res: r, version: head.APIVersion, mapping: m, ns: r.Namespace}
		if m.Scope.Name() != meta.RESTScopeNameNamespace {
			t.ns = ""
		} else if t.ns == "" {
			t.ns = relNS
		}
		targets[i] = t
	}
	var (
		mu     sync.Mutex
		denied = map[string]string{} // by resource and namespace
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxLiveReads)
	for i, t := range targets {
		if t == nil {
			continue
		}
		g.Go(func() error {
			where := t.mapping.Resource.GroupResource().String() + "/" + t.ns
			mu.Lock()
			reason, refused := denied[where]
			mu.Unlock()
			if refused {
				objs[i].Unreadable = reason
				return nil
			}
			u, err := lc.Dynamic.Resource(t.mapping.Resource).Namespace(t.ns).Get(gctx, t.res.Name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return nil
			case apierrors.IsForbidden(err):
				reason := cannotThen("get", t.mapping.Resource.GroupResource(), t.ns, then)
				mu.Lock()
				denied[where] = reason
				mu.Unlock()
				objs[i].Unreadable = reason
				return nil
			case err != nil:
				return kube.Explain(err, "get", t.mapping.Resource.Resource, t.ns)
			}
			objs[i].Live = u.Object
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return objs, targets, nil
}

// cannot says that the user may not verb a resource in ns, and how to check.
func cannot(verb string, gr schema.GroupResource, ns string) string {
	return cannotThen(verb, gr, ns, "not compared")
}

// cannotThen is cannot with what follows for the object ("not compared",
// "health unknown").
func cannotThen(verb string, gr schema.GroupResource, ns, then string) string {
	if ns == "" {
		return fmt.Sprintf("your credentials may not %s %s at the cluster scope; %s (check: kubectl auth can-i %s %s)", verb, gr, then, verb, gr)
	}
	return fmt.Sprintf("your credentials may not %s %s in namespace %s; %s (check: kubectl auth can-i %s %s -n %s)", verb, gr, ns, then, verb, gr, ns)
}

// Helm's marks on the objects of a release.
const (
	managedByLabel     = "app.kubernetes.io/managed-by"
	releaseNameAnno    = "meta.helm.sh/release-name"
	releaseNSAnno      = "meta.helm.sh/release-namespace"
	helmManagedByValue = "Helm"
)

// readExtras lists, by metadata, the objects of the manifest's kinds, in its
// namespaces, that Helm's labels and annotations give to rel, and returns those
// the manifest does not hold. Kinds the manifest does not hold are not looked
// for.
func readExtras(ctx context.Context, lc *kube.LiveClients, rel *release.Release, targets []*target) ([]revdiff.LiveObject, []string, error) {
	type scope struct {
		gvr schema.GroupVersionResource
		ns  string
	}
	held := map[string]bool{}
	var scopes []scope
	seen := map[scope]*target{}
	for _, t := range targets {
		if t == nil {
			continue
		}
		held[t.mapping.Resource.GroupResource().String()+"/"+t.ns+"/"+t.res.Name] = true
		s := scope{t.mapping.Resource, t.ns}
		if seen[s] == nil {
			seen[s] = t
			scopes = append(scopes, s)
		}
	}
	sel := labels.SelectorFromSet(labels.Set{managedByLabel: helmManagedByValue}).String()
	var (
		out   []revdiff.LiveObject
		notes []string
	)
	for _, s := range scopes {
		t := seen[s]
		list, err := lc.Metadata.Resource(s.gvr).Namespace(s.ns).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if apierrors.IsForbidden(err) {
			notes = append(notes, "extra objects not looked for: "+cannot("list", s.gvr.GroupResource(), s.ns))
			continue
		}
		if err != nil {
			return nil, nil, kube.Explain(err, "list", s.gvr.Resource, s.ns)
		}
		for _, m := range list.Items {
			a := m.Annotations
			if a[releaseNameAnno] != rel.Name || a[releaseNSAnno] != rel.Namespace {
				continue
			}
			if held[s.gvr.GroupResource().String()+"/"+s.ns+"/"+m.Name] {
				continue
			}
			key := t.res.Kind + "/" + m.Name
			if s.ns != "" {
				key = t.res.Kind + "/" + s.ns + "/" + m.Name
			}
			out = append(out, revdiff.LiveObject{
				Resource:   revdiff.Resource{Key: key, Kind: t.res.Kind, Namespace: s.ns, Name: m.Name},
				APIVersion: t.version,
				Extra:      true,
			})
		}
	}
	return out, notes, nil
}
