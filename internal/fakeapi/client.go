package fakeapi

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// clientset is the fake clientset with its Secrets and ConfigMaps clients wrapped
// (the two resources Helm stores releases in). The fake builds its testing actions
// by parsing selectors and panics on an invalid one; a real client sends it and
// gets BadRequest back. The fake also ignores contexts, and keeps a copy of every
// request it serves, release data included, which a long demo session cannot
// afford: the wrappers drop that record (Requests counts instead).
type clientset struct {
	*fake.Clientset
	cluster *Cluster
}

// CoreV1 returns the core/v1 client with Secrets and ConfigMaps wrapped.
func (cs *clientset) CoreV1() corev1client.CoreV1Interface {
	return coreV1{CoreV1Interface: cs.Clientset.CoreV1(), cluster: cs.cluster}
}

type coreV1 struct {
	corev1client.CoreV1Interface
	cluster *Cluster
}

// Secrets returns the wrapped Secrets client for namespace.
func (c coreV1) Secrets(namespace string) corev1client.SecretInterface {
	return secrets{SecretInterface: c.CoreV1Interface.Secrets(namespace), guard: guard{c.cluster, secretsGVR}}
}

// ConfigMaps returns the wrapped ConfigMaps client for namespace.
func (c coreV1) ConfigMaps(namespace string) corev1client.ConfigMapInterface {
	return configMaps{ConfigMapInterface: c.CoreV1Interface.ConfigMaps(namespace), guard: guard{c.cluster, configMapsGVR}}
}

// guard is what a wrapped client does before it hands a request to the fake.
type guard struct {
	cluster *Cluster
	gvr     schema.GroupVersionResource
}

type secrets struct {
	corev1client.SecretInterface
	guard
}

// start checks ctx before a request is sent and drops the fake's record of the
// requests served so far.
func (g guard) start(ctx context.Context, verb string) error {
	g.cluster.clientset.ClearActions()
	return live(ctx, verb, g.gvr.Resource)
}

// live fails a request whose context is done before it is sent, as client-go does.
func live(ctx context.Context, verb, resource string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s %s: %w", verb, resource, err)
	}
	return nil
}

// checkList answers a request with a selector the server would refuse: it is
// counted like any request and gets the server's BadRequest.
func (g guard) checkList(verb string, opts metav1.ListOptions) error {
	if _, _, err := selectors(g.gvr, opts); err != nil {
		if ferr := g.cluster.begin(verb); ferr != nil {
			return ferr
		}
		return err
	}
	return nil
}

func (s secrets) Create(ctx context.Context, secret *corev1.Secret, opts metav1.CreateOptions) (*corev1.Secret, error) {
	if err := s.start(ctx, VerbCreate); err != nil {
		return nil, err
	}
	return s.SecretInterface.Create(ctx, secret, opts)
}

func (s secrets) Update(ctx context.Context, secret *corev1.Secret, opts metav1.UpdateOptions) (*corev1.Secret, error) {
	if err := s.start(ctx, VerbUpdate); err != nil {
		return nil, err
	}
	return s.SecretInterface.Update(ctx, secret, opts)
}

func (s secrets) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := s.start(ctx, VerbDelete); err != nil {
		return err
	}
	return s.SecretInterface.Delete(ctx, name, opts)
}

func (s secrets) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	if err := s.start(ctx, VerbDeleteCollection); err != nil {
		return err
	}
	if err := s.checkList(VerbDeleteCollection, listOpts); err != nil {
		return err
	}
	return s.SecretInterface.DeleteCollection(ctx, opts, listOpts)
}

func (s secrets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	if err := s.start(ctx, VerbGet); err != nil {
		return nil, err
	}
	return s.SecretInterface.Get(ctx, name, opts)
}

func (s secrets) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	if err := s.start(ctx, VerbList); err != nil {
		return nil, err
	}
	if err := s.checkList(VerbList, opts); err != nil {
		return nil, err
	}
	return s.SecretInterface.List(ctx, opts)
}

// Watch stops the watch when ctx is done, as a real client's watch does.
func (s secrets) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := s.start(ctx, VerbWatch); err != nil {
		return nil, err
	}
	if err := s.checkList(VerbWatch, opts); err != nil {
		return nil, err
	}
	w, err := s.SecretInterface.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	stopOnDone(ctx, w)
	return w, nil
}

func (s secrets) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*corev1.Secret, error) {
	if err := s.start(ctx, VerbPatch); err != nil {
		return nil, err
	}
	return s.SecretInterface.Patch(ctx, name, pt, data, opts, subresources...)
}

func (s secrets) Apply(ctx context.Context, secret *applycorev1.SecretApplyConfiguration, opts metav1.ApplyOptions) (*corev1.Secret, error) {
	if err := s.start(ctx, VerbPatch); err != nil {
		return nil, err
	}
	return s.SecretInterface.Apply(ctx, secret, opts)
}

type configMaps struct {
	corev1client.ConfigMapInterface
	guard
}

func (c configMaps) Create(ctx context.Context, cm *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error) {
	if err := c.start(ctx, VerbCreate); err != nil {
		return nil, err
	}
	return c.ConfigMapInterface.Create(ctx, cm, opts)
}

func (c configMaps) Update(ctx context.Context, cm *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	if err := c.start(ctx, VerbUpdate); err != nil {
		return nil, err
	}
	return c.ConfigMapInterface.Update(ctx, cm, opts)
}

func (c configMaps) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := c.start(ctx, VerbDelete); err != nil {
		return err
	}
	return c.ConfigMapInterface.Delete(ctx, name, opts)
}

func (c configMaps) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	if err := c.start(ctx, VerbDeleteCollection); err != nil {
		return err
	}
	if err := c.checkList(VerbDeleteCollection, listOpts); err != nil {
		return err
	}
	return c.ConfigMapInterface.DeleteCollection(ctx, opts, listOpts)
}

func (c configMaps) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ConfigMap, error) {
	if err := c.start(ctx, VerbGet); err != nil {
		return nil, err
	}
	return c.ConfigMapInterface.Get(ctx, name, opts)
}

func (c configMaps) List(ctx context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error) {
	if err := c.start(ctx, VerbList); err != nil {
		return nil, err
	}
	if err := c.checkList(VerbList, opts); err != nil {
		return nil, err
	}
	return c.ConfigMapInterface.List(ctx, opts)
}

// Watch stops the watch when ctx is done, as a real client's watch does.
func (c configMaps) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := c.start(ctx, VerbWatch); err != nil {
		return nil, err
	}
	if err := c.checkList(VerbWatch, opts); err != nil {
		return nil, err
	}
	w, err := c.ConfigMapInterface.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	stopOnDone(ctx, w)
	return w, nil
}

func (c configMaps) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*corev1.ConfigMap, error) {
	if err := c.start(ctx, VerbPatch); err != nil {
		return nil, err
	}
	return c.ConfigMapInterface.Patch(ctx, name, pt, data, opts, subresources...)
}

func (c configMaps) Apply(ctx context.Context, cm *applycorev1.ConfigMapApplyConfiguration, opts metav1.ApplyOptions) (*corev1.ConfigMap, error) {
	if err := c.start(ctx, VerbPatch); err != nil {
		return nil, err
	}
	return c.ConfigMapInterface.Apply(ctx, cm, opts)
}

// stopOnDone stops w when ctx is done.
func stopOnDone(ctx context.Context, w watch.Interface) {
	if ctx.Done() == nil {
		return
	}
	ww, ok := w.(*watcher)
	if !ok {
		return
	}
	go func() {
		select {
		case <-ctx.Done():
			ww.Stop()
		case <-ww.done:
		}
	}()
}
