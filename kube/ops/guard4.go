package ops

import (
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kube4 "helm.sh/helm/v4/pkg/kube"
)

// guardedKube4 is guardedKube for Helm 4's kube client: once the operation met a
// release that moved on, it refuses to create, change or delete any resource.
type guardedKube4 struct {
	kube4.Interface
	t *tracker
}

var _ kube4.InterfaceWaitOptions = guardedKube4{}

// guard4 wraps kc for the operation t tracks.
func guard4(kc kube4.Interface, t *tracker) kube4.Interface {
	return guardedKube4{Interface: kc, t: t}
}

func (g guardedKube4) guard() guardedKube { return guardedKube{t: g.t} }

// Create creates resources unless the operation met a conflict.
func (g guardedKube4) Create(resources kube4.ResourceList, opts ...kube4.ClientCreateOption) (*kube4.Result, error) {
	if err := g.guard().refuse(); err != nil {
		return nil, err
	}
	r, err := g.Interface.Create(resources, opts...)
	g.guard().changed(err)
	return r, err
}

// Update changes resources unless the operation met a conflict.
func (g guardedKube4) Update(original, target kube4.ResourceList, opts ...kube4.ClientUpdateOption) (*kube4.Result, error) {
	if err := g.guard().refuse(); err != nil {
		return nil, err
	}
	r, err := g.Interface.Update(original, target, opts...)
	g.guard().changed(err)
	return r, err
}

// Delete deletes resources unless the operation met a conflict.
func (g guardedKube4) Delete(resources kube4.ResourceList, policy metav1.DeletionPropagation) (*kube4.Result, []error) {
	if err := g.guard().refuse(); err != nil {
		return nil, []error{err}
	}
	r, errs := g.Interface.Delete(resources, policy)
	g.guard().changed(errors.Join(errs...))
	return r, errs
}

// GetWaiterWithOptions returns the client's waiter with options, where it has
// one: Helm 4's actions ask for it before the plain GetWaiter.
func (g guardedKube4) GetWaiterWithOptions(ws kube4.WaitStrategy, opts ...kube4.WaitOption) (kube4.Waiter, error) {
	if kc, ok := g.Interface.(kube4.InterfaceWaitOptions); ok {
		return kc.GetWaiterWithOptions(ws, opts...)
	}
	return g.Interface.GetWaiter(ws)
}
