// Package paging reads every page of a Kubernetes listing, starting again when
// the continue token expires, for kube and kube/live alike.
package paging

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// MaxRestarts bounds how many times a listing whose continue token expired
// (410 Gone: etcd compacted the revision it was reading at) starts over.
const MaxRestarts = 3

// Page reads one page of a listing from its continue token ("" for the first)
// and returns its items and the next token ("" after the last page).
type Page[T any] func(ctx context.Context, cont string) (items []T, next string, err error)

// All reads every page of a listing. When a continue token has expired it
// starts again from the first page, discarding what it had read, since the pages
// would otherwise mix two states of the cluster; after MaxRestarts such
// restarts it gives up with the server's error.
func All[T any](ctx context.Context, page Page[T]) ([]T, error) {
	var out []T
	err := Each(ctx, page, func() { out = nil }, func(items []T) { out = append(out, items...) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Each reads every page of a listing and hands each page's items to fn as it
// arrives, so that a caller may keep only what it needs of them. When a continue
// token has expired it calls restart, for the caller to drop what it kept, and
// starts again from the first page (see All).
func Each[T any](ctx context.Context, page Page[T], restart func(), fn func([]T)) error {
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
		if !expired || restarts >= MaxRestarts {
			if expired {
				return fmt.Errorf("the listing was restarted %d times and its continue token expired each time (the cluster changes faster than it can be listed): retry: %w", restarts, err)
			}
			return err
		}
		restarts++
		restart()
	}
}
