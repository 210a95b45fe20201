package fakeapi

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
)

// dynamicClient serves the dynamic API from the cluster's store, so it reads
// exactly what the clientset and the metadata client see, objects of the kinds
// client-go's scheme knows (stored typed) and of custom resources (stored as
// unstructured) alike. It reads (get, list, watch), creates and deletes; updates,
// patches and applies are refused with MethodNotSupported: the demo's live
// objects are looked at, never changed by chunkview (its operations apply
// nothing there, see demo.DiscardKubeClients). Requests are counted, authorized
// and can be failed like the clientset's.
type dynamicClient struct{ cluster *Cluster }

var (
	_ dynamic.Interface                      = dynamicClient{}
	_ dynamic.NamespaceableResourceInterface = dynamicResource{}
)

// Dynamic returns a dynamic client backed by the cluster's objects. The kind of
// what it returns is the one its resource is served as (see ServeResources); an
// object of a resource the cluster does not serve is returned without one.
func (c *Cluster) Dynamic() dynamic.Interface { return dynamicClient{c} }

// Resource returns a client for one resource, cluster-wide until Namespace.
func (d dynamicClient) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return dynamicResource{cluster: d.cluster, gvr: gvr}
}

type dynamicResource struct {
	cluster *Cluster
	gvr     schema.GroupVersionResource
	ns      string
}

// Namespace returns a client for the resource in namespace ns.
func (r dynamicResource) Namespace(ns string) dynamic.ResourceInterface {
	r.ns = ns
	return r
}

func (r dynamicResource) begin(ctx context.Context, verb, name string, subresources []string) error {
	if err := live(ctx, verb, r.gvr.Resource); err != nil {
		return err
	}
	if err := r.cluster.begin(verb); err != nil {
		return err
	}
	if err := r.cluster.authorize(r.ns, verb, r.gvr.GroupResource(), name); err != nil {
		return err
	}
	if len(subresources) > 0 {
		return apierrors.NewMethodNotSupported(r.gvr.GroupResource(), verb+" "+subresources[0])
	}
	return nil
}

// unstructuredOf is o as the dynamic client returns it: unstructured, with the
// apiVersion and kind of its resource.
func (r dynamicResource) unstructuredOf(o object) (*unstructured.Unstructured, error) {
	var u *unstructured.Unstructured
	if in, ok := o.(*unstructured.Unstructured); ok {
		u = in.DeepCopy()
	} else {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		u = &unstructured.Unstructured{Object: m}
	}
	if kind := r.cluster.kindOf(r.gvr); kind != "" {
		u.SetGroupVersionKind(r.gvr.GroupVersion().WithKind(kind))
	}
	return u, nil
}

func (r dynamicResource) Get(ctx context.Context, name string, _ metav1.GetOptions, subresources ...string) (*unstructured.Unstructured, error) {
	if err := r.begin(ctx, VerbGet, name, subresources); err != nil {
		return nil, err
	}
	o, err := r.cluster.store.get(r.gvr, r.ns, name)
	if err != nil {
		return nil, err
	}
	return r.unstructuredOf(o)
}

func (r dynamicResource) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	if err := r.begin(ctx, VerbList, "", nil); err != nil {
		return nil, err
	}
	items, lm, err := r.cluster.store.list(r.gvr, r.ns, opts)
	if err != nil {
		return nil, err
	}
	out := &unstructured.UnstructuredList{Items: make([]unstructured.Unstructured, len(items))}
	out.SetResourceVersion(lm.ResourceVersion)
	out.SetContinue(lm.Continue)
	out.SetRemainingItemCount(lm.RemainingItemCount)
	if kind := r.cluster.kindOf(r.gvr); kind != "" {
		out.SetGroupVersionKind(r.gvr.GroupVersion().WithKind(kind + "List"))
	}
	for i, o := range items {
		u, err := r.unstructuredOf(o)
		if err != nil {
			return nil, err
		}
		out.Items[i] = *u
	}
	return out, nil
}

// Watch stops the watch when ctx is done, as a real client's watch does.
func (r dynamicResource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := r.begin(ctx, VerbWatch, "", nil); err != nil {
		return nil, err
	}
	w, err := r.cluster.store.watch(r.gvr, r.ns, opts, func(o object) runtime.Object {
		u, err := r.unstructuredOf(o)
		if err != nil {
			return &metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
		}
		return u
	})
	if err != nil {
		return nil, err
	}
	stopOnDone(ctx, w)
	return w, nil
}

// Create stores obj typed when client-go's scheme knows its kind, as the
// clientset would, else as it is.
func (r dynamicResource) Create(ctx context.Context, obj *unstructured.Unstructured, opts metav1.CreateOptions, subresources ...string) (*unstructured.Unstructured, error) {
	if err := r.begin(ctx, VerbCreate, obj.GetName(), subresources); err != nil {
		return nil, err
	}
	in, err := typedIfKnown(obj)
	if err != nil {
		return nil, err
	}
	o, err := r.cluster.store.create(r.gvr, r.ns, in, isDryRun(opts.DryRun))
	if err != nil {
		return nil, err
	}
	return r.unstructuredOf(o)
}

// typedIfKnown converts u to its typed object when client-go's scheme knows
// its kind; otherwise it returns u.
func typedIfKnown(u *unstructured.Unstructured) (runtime.Object, error) {
	typed, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return u, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("decode %s: %v", u.GroupVersionKind(), err))
	}
	return typed, nil
}

func (r dynamicResource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions, subresources ...string) error {
	if err := r.begin(ctx, VerbDelete, name, subresources); err != nil {
		return err
	}
	return r.cluster.store.delete(r.gvr, r.ns, name, opts)
}

func (r dynamicResource) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	if err := r.begin(ctx, VerbDeleteCollection, "", nil); err != nil {
		return err
	}
	return r.cluster.store.deleteCollection(r.gvr, r.ns, opts, listOpts)
}

// notSupported refuses a write the dynamic client does not serve.
func (r dynamicResource) notSupported(ctx context.Context, verb string) error {
	if err := r.begin(ctx, verb, "", nil); err != nil {
		return err
	}
	return apierrors.NewMethodNotSupported(r.gvr.GroupResource(), verb)
}

func (r dynamicResource) Update(ctx context.Context, _ *unstructured.Unstructured, _ metav1.UpdateOptions, _ ...string) (*unstructured.Unstructured, error) {
	return nil, r.notSupported(ctx, VerbUpdate)
}

func (r dynamicResource) UpdateStatus(ctx context.Context, _ *unstructured.Unstructured, _ metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	return nil, r.notSupported(ctx, VerbUpdate)
}

func (r dynamicResource) Patch(ctx context.Context, _ string, _ types.PatchType, _ []byte, _ metav1.PatchOptions, _ ...string) (*unstructured.Unstructured, error) {
	return nil, r.notSupported(ctx, VerbPatch)
}

func (r dynamicResource) Apply(ctx context.Context, _ string, _ *unstructured.Unstructured, _ metav1.ApplyOptions, _ ...string) (*unstructured.Unstructured, error) {
	return nil, r.notSupported(ctx, VerbPatch)
}

func (r dynamicResource) ApplyStatus(ctx context.Context, _ string, _ *unstructured.Unstructured, _ metav1.ApplyOptions) (*unstructured.Unstructured, error) {
	return nil, r.notSupported(ctx, VerbPatch)
}
