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
	restarts := 0
	for {
		var out []T
		cont := ""
		var err error
		for {
			var items []T
			items, cont, err = page(ctx, cont)
			if err != nil {
				break
			}
			out = append(out, items...)
			if cont == "" {
				return out, nil
			}
		}
		expired := apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
		if !expired || restarts >= maxListRestarts {
			if expired {
				return nil, fmt.Errorf("the listing was restarted %d times and its continue token expired each time (the cluster changes faster than it can be listed): retry: %w", restarts, err)
			}
			return nil, err
		}
		restarts++
	}
}

// listMeta lists the metadata of the Secrets in ns ("" for all) that sel selects,
// through the metadata API, in pages of metadataPage. No Secret data crosses the
// wire.
func (c *Client) listMeta(ctx context.Context, ns string, sel labels.Selector) ([]metav1.PartialObjectMetadata, error) {
	items, err := listAll(ctx, func(ctx context.Context, cont string) ([]metav1.PartialObjectMetadata, string, error) {
		opts := metav1.ListOptions{LabelSelector: sel.String(), Limit: metadataPage, Continue: cont}
		list, err := c.md.Resource(secretsGVR).Namespace(ns).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		return list.Items, list.Continue, nil
	})
	if err != nil {
		return nil, Explain(err, "list", "secrets", ns)
	}
	return items, nil
}
