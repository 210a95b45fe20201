package kube

import (
	"fmt"
)

// The controllers that reconcile Helm releases and undo a fix made by hand: Flux's
// helm-controller rolls a HelmRelease's release forward again minutes after a
// manual rollback unless the HelmRelease is suspended; OLMv1's operator-controller
// does the same to a ClusterExtension's.
const (
	// FluxHelmGroup is Flux's helm-controller API group.
	FluxHelmGroup = "helm.toolkit.fluxcd.io"
	// KindHelmRelease is Flux's kind.
	KindHelmRelease = "HelmRelease"
)

// Controller is what reconciles a release: a Flux HelmRelease or an OLMv1
// ClusterExtension, as it was read.
type Controller struct {
	// Kind is KindHelmRelease or KindClusterExtension; Namespace is empty for a
	// ClusterExtension, which is cluster-scoped.
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Suspended is a HelmRelease's spec.suspend: its controller leaves the
	// release alone.
	Suspended bool `json:"suspended"`
	// Ready is the status of its Ready condition ("True", "False", "Unknown"; ""
	// without one), ReadyMessage the condition's message.
	Ready        string `json:"ready,omitempty"`
	ReadyMessage string `json:"readyMessage,omitempty"`
	// LastAttempted is a HelmRelease's status.lastAttemptedRevision: the chart
	// version it last tried.
	LastAttempted string `json:"lastAttemptedRevision,omitempty"`
	// Package, Bundle and BundleVersion are a ClusterExtension's
	// spec.source.catalog.packageName and status.install.bundle.
	Package       string `json:"package,omitempty"`
	Bundle        string `json:"bundle,omitempty"`
	BundleVersion string `json:"bundleVersion,omitempty"`
	// InstallNamespace is a ClusterExtension's spec.namespace: where its
	// release's resources live.
	InstallNamespace string `json:"installNamespace,omitempty"`
	// Unreadable says why the controller could not be read ("not readable:
	// forbidden (...)"); the fields above are then empty.
	Unreadable string `json:"unreadable,omitempty"`
}

// ID names the controller as "HelmRelease/NS/NAME" or "ClusterExtension/NAME".
func (c *Controller) ID() string {
	if c.Namespace == "" {
		return c.Kind + "/" + c.Name
	}
	return c.Kind + "/" + c.Namespace + "/" + c.Name
}

// Active reports whether the controller reconciles the release now and would
// undo a change made by hand: a HelmRelease that is not suspended, and any
// ClusterExtension (OLMv1 has no way to suspend one).
func (c *Controller) Active() bool {
	if c == nil {
		return false
	}
	return c.Kind == KindClusterExtension || !c.Suspended
}

// Pause says how to stop the controller from undoing a change, and how to let it
// go on afterwards.
func (c *Controller) Pause() string {
	switch c.Kind {
	case KindHelmRelease:
		return fmt.Sprintf("suspend it first with `flux suspend helmrelease %s -n %s` (and `flux resume helmrelease %s -n %s` afterwards)", c.Name, c.Namespace, c.Name, c.Namespace)
	case KindClusterExtension:
		return fmt.Sprintf("operator-controller reconciles ClusterExtension %s and will roll the release to what the extension asks for; change the ClusterExtension itself (kubectl edit clusterextension %s), or scale operator-controller down while you repair", c.Name, c.Name)
	}
	return ""
}
