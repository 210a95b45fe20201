package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
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

// maxListRestarts bounds how many times a listing whose continue token expired
// (410 Gone: etcd compacted the revision it was reading at) starts over.
const maxListRestarts = 3

// listPage reads one page of a listing from its continue token ("" for the first)
// and returns its items and the next token ("" after the last page).
type listPage[T any] func(ctx context.Context, cont string) (items []T, next string, err error)

// listAll reads every page of a listing. When a continue token has expired it
// starts again from the first page, discarding what it had read, since the pages
// would otherwise mix two states of the cluster; after maxListRestarts such
// restarts it gives up with the server's error.
func listAll[T any](ctx context.Context, page listPage[T]) ([]T, error) {
	var out []T
	err := eachPage(ctx, page, func() { out = nil }, func(items []T) { out = append(out, items...) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachPage reads every page of a listing and hands each page's items to fn as it
// arrives, so that a caller may keep only what it needs of them. When a continue
// token has expired it calls restart, for the caller to drop what it kept, and
// starts again from the first page (see listAll).
func eachPage[T any](ctx context.Context, page listPage[T], restart func(), fn func([]T)) error {
	restarts := 0
	for {
		cont := ""
		var err error
		for {
			var items []T
			items, cont, err = page(ctx, cont)
			if err != nil {
				break
			}
			fn(items)
			if cont == "" {
				return nil
			}
		}
		expired := apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
		if !expired || restarts >= maxListRestarts {
			if expired {
				return fmt.Errorf("the listing was restarted %d times and its continue token expired each time (the cluster changes faster than it can be listed): retry: %w", restarts, err)
			}
			return err
		}
		restarts++
		restart()
	}
}

// listMeta lists the metadata of the Secrets in ns ("" for all) that sel selects,
// through the metadata API, in pages of metadataPage. No Secret data crosses the
// wire.
func (c *Client) listMeta(ctx context.Context, ns string, sel labels.Selector) ([]metav1.PartialObjectMetadata, error) {
	items, err := listAll(ctx, c.metaPage(ns, sel))
	if err != nil {
		return nil, Explain(err, "list", "secrets", ns)
	}
	return items, nil
}

// eachMeta lists what listMeta lists, handing each page to fn as it arrives
// (restart as in eachPage), so that the whole listing need not be held at once.
func (c *Client) eachMeta(ctx context.Context, ns string, sel labels.Selector, restart func(), fn func([]metav1.PartialObjectMetadata)) error {
	if err := eachPage(ctx, c.metaPage(ns, sel), restart, fn); err != nil {
		return Explain(err, "list", "secrets", ns)
	}
	return nil
}

// metaPage reads one page of the metadata of the Secrets in ns that sel selects.
func (c *Client) metaPage(ns string, sel labels.Selector) listPage[metav1.PartialObjectMetadata] {
	return func(ctx context.Context, cont string) ([]metav1.PartialObjectMetadata, string, error) {
		opts := metav1.ListOptions{LabelSelector: sel.String(), Limit: metadataPage, Continue: cont}
		list, err := c.md.Resource(secretsGVR).Namespace(ns).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		return list.Items, list.Continue, nil
	}
}
