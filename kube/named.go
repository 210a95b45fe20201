package kube

import (
	"context"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"

	"github.com/chunkview/chunkview/kube/internal/paging"
	"github.com/chunkview/chunkview/storage"
)

// A release looked up by name (ReleasesNamed) is looked for in the chunked store
// and in Helm's Secrets: two metadata lists of the same Secrets by the release's
// name label, which differ only in the rest of their selectors. namedSecrets makes
// them one: it lists the Secrets labelled with the name once, where both stores
// would look, and answers each store's list from it. An operation by name pays
// one request less (issue 32: requests per operation).

// helmSecretPrefix begins the name of every record of Helm's Secrets driver,
// and of every chunked index Secret, whose key has Helm's form.
const helmSecretPrefix = "sh.helm.release.v1."

// helmRecord tells, from its metadata alone, whether a Secret labelled as a
// record is one of Helm's Secrets driver (type helm.sh/release.v1, which Helm's
// store selects by field and a Secret's metadata does not carry) rather than a
// chunked index (type operatorframework.io/index.v1), pending or not: both are
// named by Helm's key, and labelled owner and name. The chunked format labels
// every index with a type (index, or pending while its create runs) and
// key=its own name; Helm's driver sets neither, and a release's custom labels
// that gave a Helm record both would have to name the record itself.
func helmRecord(m *metav1.PartialObjectMetadata) bool {
	if !strings.HasPrefix(m.Name, helmSecretPrefix) {
		return false
	}
	return m.Labels[storage.LabelType] == "" || m.Labels[storage.LabelKey] != m.Name
}

// prelistNamed returns c, or a copy of it whose listings of the Secrets that
// name labels are answered from one list made here, when c reads both the chunked
// store and Helm's Secrets and the two look in one place (or one looks
// everywhere). A list that fails is not held: the stores then list as
// they would have, and say why.
func (c *Client) prelistNamed(ctx context.Context, name string) *Client {
	if name == "" || !slices.Contains(c.cfg.drivers(), DriverChunked) || !slices.Contains(c.cfg.drivers(), DriverSecret) {
		return c
	}
	chunked := c.cfg.listNamespace()
	if c.cfg.StorageNamespace == "" && !c.cfg.AllNamespaces && c.cfg.Namespace != "" {
		chunked = metav1.NamespaceAll // see chunkedStore.releases
	}
	helm := (&helmStore{c: c, kind: DriverSecret}).listNamespace()
	ns := chunked
	switch {
	case chunked == helm, chunked == metav1.NamespaceAll:
	case helm == metav1.NamespaceAll:
		ns = helm
	default:
		return c
	}
	set := labels.Set{storage.LabelName: name}
	if c.cfg.Owner == HelmOwner {
		set[storage.LabelOwner] = HelmOwner
	}
	sel := labels.SelectorFromSet(set)
	// The API's own errors, unexplained: a store that meets one explains it.
	items, err := paging.All(ctx, secretMeta{c.md}.page(ns, sel))
	held := &namedSecrets{name: name, ns: ns, items: items}
	if err != nil {
		if ns != metav1.NamespaceAll || !apierrors.IsForbidden(err) || c.cfg.Namespace == "" {
			return c
		}
		// The chunked store, refused everywhere, looks where the records
		// usually are: so does Helm's, which looks there alone.
		held.denied = err
		held.ns = c.cfg.Namespace
		if held.items, err = paging.All(ctx, secretMeta{c.md}.page(held.ns, sel)); err != nil {
			return c
		}
	}
	cp := *c
	cp.md = prelisted{Interface: c.md, held: held}
	return &cp
}

// namedSecrets are the metadata of the Secrets labelled name, in ns ("" for
// all); denied is the refusal of a list of every namespace, when ns is the one
// listed instead.
type namedSecrets struct {
	name, ns string
	items    []metav1.PartialObjectMetadata
	denied   error
}

// answer returns what a list of the Secrets in ns with opts returns, when the
// Secrets held cover it: a list selecting the name, in the namespace held or one
// within it, with no field selector but Helm's type. ok is false otherwise.
func (n *namedSecrets) answer(ns string, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error, bool) {
	if opts.Continue != "" || opts.ResourceVersion != "" {
		return nil, nil, false
	}
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, nil, false
	}
	if v, ok := sel.RequiresExactMatch(storage.LabelName); !ok || v != n.name {
		return nil, nil, false
	}
	helmOnly := false
	switch opts.FieldSelector {
	case "":
	case "type=" + string(HelmSecretType):
		helmOnly = true
	default:
		return nil, nil, false
	}
	if ns == metav1.NamespaceAll && n.denied != nil {
		return nil, n.denied, true
	}
	if n.ns != metav1.NamespaceAll && ns != n.ns {
		return nil, nil, false
	}
	out := &metav1.PartialObjectMetadataList{}
	for _, m := range n.items {
		if ns != metav1.NamespaceAll && m.Namespace != ns {
			continue
		}
		if !sel.Matches(labels.Set(m.Labels)) || helmOnly && !helmRecord(&m) {
			continue
		}
		out.Items = append(out.Items, *m.DeepCopy())
	}
	return out, nil, true
}

// prelisted is a metadata client whose lists of Secrets the held Secrets
// answer when they can; every other request goes to the server.
type prelisted struct {
	metadata.Interface
	held *namedSecrets
}

func (p prelisted) Resource(gvr schema.GroupVersionResource) metadata.Getter {
	r := p.Interface.Resource(gvr)
	if gvr != secretsGVR {
		return r
	}
	return prelistedResource{Getter: r, held: p.held}
}

type prelistedResource struct {
	metadata.Getter
	held *namedSecrets
}

func (r prelistedResource) Namespace(ns string) metadata.ResourceInterface {
	return prelistedNamespace{ResourceInterface: r.Getter.Namespace(ns), ns: ns, held: r.held}
}

func (r prelistedResource) List(ctx context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	return r.Namespace(metav1.NamespaceAll).List(ctx, opts)
}

type prelistedNamespace struct {
	metadata.ResourceInterface
	ns   string
	held *namedSecrets
}

func (r prelistedNamespace) List(ctx context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	if out, err, ok := r.held.answer(r.ns, opts); ok {
		return out, err
	}
	return r.ResourceInterface.List(ctx, opts)
}
