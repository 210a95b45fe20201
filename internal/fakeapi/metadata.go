package fakeapi

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
)

// metadataClient serves the metadata API from the cluster's store, so it sees
// exactly what the clientset sees (client-go's metadata fake keeps a store of its
// own). Requests are counted and can be failed like the clientset's.
type metadataClient struct{ cluster *Cluster }

var (
	_ metadata.Interface = metadataClient{}
	_ metadata.Getter    = metadataResource{}
)

// Resource returns a client for one resource, cluster-wide until Namespace.
func (m metadataClient) Resource(gvr schema.GroupVersionResource) metadata.Getter {
	return metadataResource{cluster: m.cluster, gvr: gvr}
}

type metadataResource struct {
	cluster *Cluster
	gvr     schema.GroupVersionResource
	ns      string
}

// asPartial is o as a metadata client hands it out: without apiVersion and kind,
// which client-go's decoding drops from metadata-only objects (gets, list items and
// watch events alike), as parity_helm_test.go checks.
func asPartial(o object) *metav1.PartialObjectMetadata {
	p := meta.AsPartialObjectMetadata(o).DeepCopy()
	p.TypeMeta = metav1.TypeMeta{}
	return p
}

// begin checks the context, counts the request and applies injected failures.
func (r metadataResource) begin(ctx context.Context, verb string, subresources []string) error {
	if err := live(ctx, verb, r.gvr.Resource); err != nil {
		return err
	}
	if err := r.cluster.begin(verb); err != nil {
		return err
	}
	if err := r.cluster.authorize(r.ns, verb, r.gvr.GroupResource(), ""); err != nil {
		return err
	}
	if len(subresources) > 0 {
		return apierrors.NewMethodNotSupported(r.gvr.GroupResource(), verb+" "+subresources[0])
	}
	return nil
}

// Namespace returns a client for the resource in namespace ns.
func (r metadataResource) Namespace(ns string) metadata.ResourceInterface {
	r.ns = ns
	return r
}

func (r metadataResource) Get(ctx context.Context, name string, _ metav1.GetOptions, subresources ...string) (*metav1.PartialObjectMetadata, error) {
	if err := r.begin(ctx, VerbGet, subresources); err != nil {
		return nil, err
	}
	o, err := r.cluster.store.get(r.gvr, r.ns, name)
	if err != nil {
		return nil, err
	}
	return asPartial(o), nil
}

func (r metadataResource) List(ctx context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	if err := r.begin(ctx, VerbList, nil); err != nil {
		return nil, err
	}
	items, lm, err := listAs(r.cluster.store, r.gvr, r.ns, opts, asPartial)
	if err != nil {
		return nil, err
	}
	out := &metav1.PartialObjectMetadataList{ListMeta: lm, Items: make([]metav1.PartialObjectMetadata, len(items))}
	for i, p := range items {
		out.Items[i] = *p
	}
	return out, nil
}

// Watch stops the watch when ctx is done, as a real client's watch does.
func (r metadataResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := r.begin(ctx, VerbWatch, nil); err != nil {
		return nil, err
	}
	w, err := r.cluster.store.watch(r.gvr, r.ns, opts, func(o object) runtime.Object { return asPartial(o) })
	if err != nil {
		return nil, err
	}
	stopOnDone(ctx, w)
	return w, nil
}

func (r metadataResource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions, subresources ...string) error {
	if err := r.begin(ctx, VerbDelete, subresources); err != nil {
		return err
	}
	return r.cluster.store.delete(r.gvr, r.ns, name, opts)
}

func (r metadataResource) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	if err := r.begin(ctx, VerbDeleteCollection, nil); err != nil {
		return err
	}
	return r.cluster.store.deleteCollection(r.gvr, r.ns, opts, listOpts)
}

func (r metadataResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*metav1.PartialObjectMetadata, error) {
	if err := r.begin(ctx, VerbPatch, subresources); err != nil {
		return nil, err
	}
	o, err := r.cluster.store.patch(r.gvr, r.ns, name, pt, data, isDryRun(opts.DryRun))
	if err != nil {
		return nil, err
	}
	return asPartial(o), nil
}
