package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/metadata"

	"github.com/chunkview/chunkview/kube/internal/paging"
)

// metadataPage is the page size of metadata lists: large, so that the common case
// stays one request. A list of index metadata (about 1 KB a Secret) is answered by
// an API server of 1.31 or later from its watch cache, in memory. Small pages look
// cheaper and are not: the first page comes from the cache, but every continued
// page is read from etcd, which scans all the Secrets past the continue key, the
// payloads of every release and every chunk included, to filter them by label, and
// a full last page is followed by an empty one. Listing 2,000 index Secrets among
// 670 MB of Secrets took 5 requests and 4-5 s in pages of 500, one request and 70 ms
// without. A page still bounds what one response holds on a huge fleet.
var metadataPage int64 = 5000

// secretMeta lists Secrets' metadata through the metadata API: what every
// store's listing, the checks and the watch's relist go through.
type secretMeta struct {
	md metadata.Interface
}

// list lists the metadata of the Secrets in ns ("" for all) that sel selects,
// through the metadata API, in pages of metadataPage. No Secret data crosses the
// wire.
func (m secretMeta) list(ctx context.Context, ns string, sel labels.Selector) ([]metav1.PartialObjectMetadata, error) {
	items, err := paging.All(ctx, m.page(ns, sel))
	if err != nil {
		return nil, Explain(err, "list", "secrets", ns)
	}
	return items, nil
}

// each lists what list lists, handing each page to fn as it arrives
// (restart as in eachPage), so that the whole listing need not be held at once.
func (m secretMeta) each(ctx context.Context, ns string, sel labels.Selector, restart func(), fn func([]metav1.PartialObjectMetadata)) error {
	if err := paging.Each(ctx, m.page(ns, sel), restart, fn); err != nil {
		return Explain(err, "list", "secrets", ns)
	}
	return nil
}

// page reads one page of the metadata of the Secrets in ns that sel selects.
func (m secretMeta) page(ns string, sel labels.Selector) paging.Page[metav1.PartialObjectMetadata] {
	return func(ctx context.Context, cont string) ([]metav1.PartialObjectMetadata, string, error) {
		opts := metav1.ListOptions{LabelSelector: sel.String(), Limit: metadataPage, Continue: cont}
		list, err := m.md.Resource(secretsGVR).Namespace(ns).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		return list.Items, list.Continue, nil
	}
}

// secretsGVR is the resource the metadata client lists.
var secretsGVR = corev1.SchemeGroupVersion.WithResource("secrets")
