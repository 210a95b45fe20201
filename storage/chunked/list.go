package chunked

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// metadataListPage is the page size of metadata lists. It is large on purpose: a
// list of a few thousand Secrets' metadata is served in one request from the API
// server's watch cache, where every continued page would be read from etcd.
const metadataListPage = 5000

// maxListRestarts bounds how many times a list starts over after its continue
// token expired.
const maxListRestarts = 3

// continueNotSupported is the continue token controller-runtime's cache readers
// (v0.15 and later) set on every list they answer: they hold every item in
// memory, cut a list at its Limit, and refuse a continue option sent back to
// them with a plain error.
const continueNotSupported = "continue-not-supported"

// listAll calls fn for every item that list returns for selector sel, a page of
// limit at a time. When the server no longer honours a continue token (410 Gone:
// the version it pointed at was compacted away), the list starts over from the
// beginning, and items already handed to fn are not handed again.
//
// A source that has no pages (a Secret client over controller-runtime's cache)
// is read whole, in one list without a limit, after its first page: when it
// answers with the token it is known to refuse (continueNotSupported) and a full
// page, or refuses a token it handed out with an error no API server answers
// with (refusedContinue). A list read whole ends there, whatever token comes
// with it: an API server sets none on a list without a limit, and the cache sets
// its own on every list.
func listAll[T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, sel string, limit int64, list func(context.Context, metav1.ListOptions) ([]T, string, error), fn func(PT) error) error {
	done := map[string]bool{}
	restarts := 0
	opts := metav1.ListOptions{LabelSelector: sel, Limit: limit}
	whole := limit <= 0
	for {
		items, cont, err := list(ctx, opts)
		if err != nil {
			if opts.Continue != "" && (apierrors.IsResourceExpired(err) || apierrors.IsGone(err)) && restarts < maxListRestarts {
				restarts++
				opts.Continue = ""
				continue
			}
			if opts.Continue != "" && !whole && refusedContinue(ctx, err) {
				opts, whole = unpaged(opts), true
				continue
			}
			if restarts > 0 {
				return fmt.Errorf("list (started over %d times after its continue token expired): %w", restarts, err)
			}
			return err
		}
		for i := range items {
			p := PT(&items[i])
			if done[p.GetName()] {
				continue
			}
			done[p.GetName()] = true
			if err := fn(p); err != nil {
				return err
			}
		}
		switch {
		case cont == "" || whole:
			return nil
		case cont == continueNotSupported:
			if int64(len(items)) < opts.Limit {
				// The cache cuts a list at its limit: one short of it holds
				// every item.
				return nil
			}
			opts, whole = unpaged(opts), true
		default:
			opts.Continue = cont
		}
	}
}

// unpaged returns opts as the list of every item, in one request from the
// start: the items handed out already are skipped.
func unpaged(opts metav1.ListOptions) metav1.ListOptions {
	opts.Continue, opts.Limit = "", 0
	return opts
}

// refusedContinue reports whether err, the failure of a continued list, is a
// source refusing the continue option, as controller-runtime's cache readers do
// with a plain error, rather than a failure an API server or the connection to
// it answers with (a Status, a transport error, the context's end), which a list
// without a limit would meet again.
func refusedContinue(ctx context.Context, err error) bool {
	var status apierrors.APIStatus
	var uerr *url.Error
	return ctx.Err() == nil && !errors.As(err, &status) && !errors.As(err, &uerr) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// secretLister adapts a Secret client's List to listAll.
func secretLister(client corev1client.SecretInterface) func(context.Context, metav1.ListOptions) ([]corev1.Secret, string, error) {
	return func(ctx context.Context, opts metav1.ListOptions) ([]corev1.Secret, string, error) {
		l, err := client.List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	}
}

func (c *Core[T]) listSecrets(ctx context.Context, opts metav1.ListOptions) ([]corev1.Secret, string, error) {
	return secretLister(c.client)(ctx, opts)
}

// ReadIndexes returns, by key, the index Secrets of keys that one label-selected
// list finds (IndexSelector with the keys' key labels), for a few requests where
// ReadIndex takes one per key. Each Secret is kept under its name, the record's
// key, whatever its key label says; it passes the checks ReadIndex makes. A key is
// absent from the map when the list did not find such a Secret: no index by that
// name, a pending one (a create in progress), a Secret that is not an index, one
// whose key label names none of keys, or a key that cannot be a label value. Read
// those with ReadIndex, which tells apart what it finds. keys should be few: the
// list holds the data of every index Secret it returns.
func (c *Core[T]) ReadIndexes(ctx context.Context, keys []string) (map[string]*corev1.Secret, error) {
	want := map[string]bool{}
	for _, k := range keys {
		if len(validation.IsValidLabelValue(k)) == 0 {
			want[k] = true
		}
	}
	out := map[string]*corev1.Secret{}
	if len(want) == 0 {
		return out, nil
	}
	req, err := labels.NewRequirement(LabelKey, selection.In, slices.Sorted(maps.Keys(want)))
	if err != nil {
		return nil, fmt.Errorf("read index Secrets: %w", err)
	}
	err = c.eachIndex(ctx, IndexSelector(c.owner).Add(*req), func(s *corev1.Secret) error {
		if want[s.Name] && s.Type == SecretTypeIndex && !IsPending(s) {
			out[s.Name] = s
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read index Secrets: %w", err)
	}
	return out, nil
}
