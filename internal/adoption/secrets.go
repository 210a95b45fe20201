package adoption

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ErrWatchUnsupported is returned by Watch of a delegating Secret client: neither
// driver watches, and a reader has no watch to offer.
var ErrWatchUnsupported = errors.New("adoption: the delegating Secret client does not watch")

// Secrets returns a Secret client of namespace ns that reads (Get and List) through
// reader and writes through writer. reader is what the operator already runs: a
// controller-runtime manager's API reader reads live, its cache (or any started
// cache.Cache) reads from memory. The options of a read are handed on (a Get at
// resourceVersion 0, a List's label selector, limit and continue token) for the
// reader to honour or refuse.
func Secrets(reader client.Reader, writer corev1client.SecretsGetter, ns string) corev1client.SecretInterface {
	return &delegatingSecrets{SecretInterface: writer.Secrets(ns), reader: reader, ns: ns}
}

// delegatingSecrets reads through reader; everything else, writes included, goes
// to the embedded typed client.
type delegatingSecrets struct {
	corev1client.SecretInterface
	reader client.Reader
	ns     string
}

func (d *delegatingSecrets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	if err := d.reader.Get(ctx, client.ObjectKey{Namespace: d.ns, Name: name}, s, &client.GetOptions{Raw: &opts}); err != nil {
		return nil, err
	}
	return s, nil
}

func (d *delegatingSecrets) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	// A cache reads the parsed selectors, not the raw options.
	lo := &client.ListOptions{Namespace: d.ns, Limit: opts.Limit, Continue: opts.Continue, Raw: &opts}
	if opts.LabelSelector != "" {
		sel, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("list secrets: label selector %q: %w", opts.LabelSelector, err)
		}
		lo.LabelSelector = sel
	}
	if opts.FieldSelector != "" {
		sel, err := fields.ParseSelector(opts.FieldSelector)
		if err != nil {
			return nil, fmt.Errorf("list secrets: field selector %q: %w", opts.FieldSelector, err)
		}
		lo.FieldSelector = sel
	}
	l := &corev1.SecretList{}
	if err := d.reader.List(ctx, l, lo); err != nil {
		return nil, err
	}
	return l, nil
}

func (d *delegatingSecrets) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, ErrWatchUnsupported
}
