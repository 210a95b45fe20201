package ops

import (
	"errors"
	"fmt"
	"io"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	helmkube "helm.sh/helm/v3/pkg/kube"

	"github.com/chunkview/chunkview/kube"
)

// guardedKube is the Helm kube client under an operation on a plan: once the
// operation met a release that moved on, it refuses to create, change or delete
// any resource, so that Helm cannot act on the cluster for a plan nobody confirmed.
// It also notes that Helm changed resources, for the account of what was done.
type guardedKube struct {
	helmkube.Interface
	t *tracker
}

var (
	_ helmkube.InterfaceExt                 = guardedKube{}
	_ helmkube.InterfaceDeletionPropagation = guardedKube{}
	_ helmkube.InterfaceThreeWayMerge       = guardedKube{}
	_ helmkube.InterfaceLogs                = guardedKube{}
	_ helmkube.InterfaceResources           = guardedKube{}
)

// guard3 wraps kc for the operation t tracks.
func guard3(kc helmkube.Interface, t *tracker) helmkube.Interface {
	if kc == nil {
		return nil
	}
	return guardedKube{Interface: kc, t: t}
}

func (g guardedKube) refuse() error {
	if g.t.conflicted() {
		return fmt.Errorf("%w: the release changed while the operation ran; no resource was changed from then on", kube.ErrChanged)
	}
	return nil
}

func (g guardedKube) changed(err error) {
	if err == nil {
		g.t.changedResources()
	}
}

// Create creates resources unless the operation met a conflict.
func (g guardedKube) Create(resources helmkube.ResourceList) (*helmkube.Result, error) {
	if err := g.refuse(); err != nil {
		return nil, err
	}
	r, err := g.Interface.Create(resources)
	g.changed(err)
	return r, err
}

// Update changes resources unless the operation met a conflict.
func (g guardedKube) Update(original, target helmkube.ResourceList, force bool) (*helmkube.Result, error) {
	if err := g.refuse(); err != nil {
		return nil, err
	}
	r, err := g.Interface.Update(original, target, force)
	g.changed(err)
	return r, err
}

// UpdateThreeWayMerge changes resources unless the operation met a conflict.
func (g guardedKube) UpdateThreeWayMerge(original, target helmkube.ResourceList, force bool) (*helmkube.Result, error) {
	if err := g.refuse(); err != nil {
		return nil, err
	}
	kc, ok := g.Interface.(helmkube.InterfaceThreeWayMerge)
	if !ok {
		return g.Update(original, target, force)
	}
	r, err := kc.UpdateThreeWayMerge(original, target, force)
	g.changed(err)
	return r, err
}

// Delete deletes resources unless the operation met a conflict.
func (g guardedKube) Delete(resources helmkube.ResourceList) (*helmkube.Result, []error) {
	if err := g.refuse(); err != nil {
		return nil, []error{err}
	}
	r, errs := g.Interface.Delete(resources)
	g.changed(errors.Join(errs...))
	return r, errs
}

// DeleteWithPropagationPolicy deletes resources unless the operation met a
// conflict.
func (g guardedKube) DeleteWithPropagationPolicy(resources helmkube.ResourceList, policy metav1.DeletionPropagation) (*helmkube.Result, []error) {
	if err := g.refuse(); err != nil {
		return nil, []error{err}
	}
	kc, ok := g.Interface.(helmkube.InterfaceDeletionPropagation)
	if !ok {
		return g.Delete(resources)
	}
	r, errs := kc.DeleteWithPropagationPolicy(resources, policy)
	g.changed(errors.Join(errs...))
	return r, errs
}

// WaitForDelete waits for deleted resources to go, where the client can.
func (g guardedKube) WaitForDelete(resources helmkube.ResourceList, timeout time.Duration) error {
	if kc, ok := g.Interface.(helmkube.InterfaceExt); ok {
		return kc.WaitForDelete(resources, timeout)
	}
	return nil
}

// GetPodList lists pods, where the client can.
func (g guardedKube) GetPodList(namespace string, opts metav1.ListOptions) (*v1.PodList, error) {
	if kc, ok := g.Interface.(helmkube.InterfaceLogs); ok {
		return kc.GetPodList(namespace, opts)
	}
	return nil, errors.New("this kube client cannot list pods")
}

// OutputContainerLogsForPodList writes pod logs, where the client can.
func (g guardedKube) OutputContainerLogsForPodList(pods *v1.PodList, namespace string, w func(namespace, pod, container string) io.Writer) error {
	if kc, ok := g.Interface.(helmkube.InterfaceLogs); ok {
		return kc.OutputContainerLogsForPodList(pods, namespace, w)
	}
	return errors.New("this kube client cannot read logs")
}

// Get reads resources, where the client can.
func (g guardedKube) Get(resources helmkube.ResourceList, related bool) (map[string][]runtime.Object, error) {
	if kc, ok := g.Interface.(helmkube.InterfaceResources); ok {
		return kc.Get(resources, related)
	}
	return nil, errors.New("this kube client cannot read resources")
}

// BuildTable builds a resource table, where the client can.
func (g guardedKube) BuildTable(reader io.Reader, validate bool) (helmkube.ResourceList, error) {
	if kc, ok := g.Interface.(helmkube.InterfaceResources); ok {
		return kc.BuildTable(reader, validate)
	}
	return nil, errors.New("this kube client cannot build tables")
}
