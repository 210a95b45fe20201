package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// controllerAPIs are the controllers' resources discovery found served.
type controllerAPIs struct {
	helmReleases, extensions *schema.GroupVersionResource
}

// discoverControllers asks discovery which of the controllers' APIs are served:
// the group list, then the resources of Flux's and OLMv1's preferred versions.
// A group that is absent costs nothing more.
func (c *Client) discoverControllers() (controllerAPIs, error) {
	var out controllerAPIs
	groups, err := c.cs.Discovery().ServerGroups()
	if err != nil {
		return out, err
	}
	for _, g := range groups.Groups {
		var kind string
		var dst **schema.GroupVersionResource
		switch g.Name {
		case FluxHelmGroup:
			kind, dst = KindHelmRelease, &out.helmReleases
		case OLMGroup:
			kind, dst = KindClusterExtension, &out.extensions
		default:
			continue
		}
		versions := g.Versions
		sort.SliceStable(versions, func(i, j int) bool { return versions[i].Version == g.PreferredVersion.Version })
		for _, v := range versions {
			if *dst != nil {
				break
			}
			list, err := c.cs.Discovery().ServerResourcesForGroupVersion(v.GroupVersion)
			if err != nil {
				return out, err
			}
			for _, r := range list.APIResources {
				if r.Kind == kind && !strings.Contains(r.Name, "/") {
					*dst = &schema.GroupVersionResource{Group: g.Name, Version: v.Version, Resource: r.Name}
					break
				}
			}
		}
	}
	return out, nil
}

// Controllers are the controllers read for a listing: Flux's HelmReleases by the
// release each manages, OLMv1's ClusterExtensions by name.
type Controllers struct {
	// byRelease maps "storageNamespace/releaseName" to the HelmRelease that
	// manages it.
	byRelease map[string]*Controller
	// extensions maps a ClusterExtension's name to it.
	extensions map[string]*Controller
	// unreadable, per kind, says why that kind could not be listed.
	unreadable map[string]string
}

// ReadControllers lists the controllers that may manage the releases in view:
// with one list of HelmReleases (across namespaces, or in namespace ns when that
// is all the connection looks at, or may list) and one cluster-scoped list of
// ClusterExtensions, after a discovery of which are served. A kind whose API is
// not served costs nothing past discovery and is not mentioned; one the user may
// not read is noted as not readable. It fails only when discovery fails.
func (c *Client) ReadControllers(ctx context.Context, ns string) (*Controllers, error) {
	return c.readControllers(ctx, ns, c.cfg.AllNamespaces || ns == "")
}

// readControllers is ReadControllers; across lists HelmReleases in every
// namespace first (falling back to ns when that is forbidden).
func (c *Client) readControllers(ctx context.Context, ns string, across bool) (*Controllers, error) {
	out := &Controllers{byRelease: map[string]*Controller{}, extensions: map[string]*Controller{}, unreadable: map[string]string{}}
	if c.dyn == nil {
		return out, nil
	}
	apis, err := c.discoverControllers()
	if err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			out.unreadable[KindHelmRelease] = "not readable: " + unreadable(err, "list", "API groups")
			out.unreadable[KindClusterExtension] = out.unreadable[KindHelmRelease]
			return out, nil
		}
		return nil, err
	}
	if apis.helmReleases != nil {
		list, err := c.listHelmReleases(ctx, *apis.helmReleases, ns, across)
		if err != nil {
			out.unreadable[KindHelmRelease] = "not readable: " + unreadable(err, "list", apis.helmReleases.GroupResource().String())
		}
		for i := range list {
			hr := helmReleaseController(&list[i])
			out.byRelease[helmReleaseKey(&list[i])] = hr
		}
	}
	if apis.extensions != nil {
		list, err := c.dyn.Resource(*apis.extensions).List(ctx, metav1.ListOptions{})
		if err != nil {
			out.unreadable[KindClusterExtension] = "not readable: " + unreadable(err, "list", apis.extensions.GroupResource().String())
		} else {
			for i := range list.Items {
				e := extensionController(&list.Items[i])
				out.extensions[e.Name] = e
			}
		}
	}
	return out, nil
}

// listHelmReleases lists HelmReleases across all namespaces, falling back to ns
// when that is forbidden; in ns alone unless across.
func (c *Client) listHelmReleases(ctx context.Context, gvr schema.GroupVersionResource, ns string, across bool) ([]unstructured.Unstructured, error) {
	if !across {
		list, err := c.dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	}
	list, err := c.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err != nil && apierrors.IsForbidden(err) && ns != "" {
		list, err = c.dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
	}
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// helmReleaseKey is "storageNamespace/releaseName" of the release a HelmRelease
// manages, as helm-controller names and stores it: the release of its latest
// snapshot when it has one, else spec.releaseName, else the HelmRelease's name
// after spec.targetNamespace and a dash; stored in spec.storageNamespace, else the
// HelmRelease's own namespace.
func helmReleaseKey(hr *unstructured.Unstructured) string {
	str := func(path ...string) string { s, _, _ := unstructured.NestedString(hr.Object, path...); return s }
	name := str("spec", "releaseName")
	if name == "" {
		name = hr.GetName()
		if t := str("spec", "targetNamespace"); t != "" {
			name = t + "-" + name
		}
	}
	sns := str("status", "storageNamespace")
	if sns == "" {
		sns = str("spec", "storageNamespace")
	}
	if sns == "" {
		sns = hr.GetNamespace()
	}
	if hist, _, _ := unstructured.NestedSlice(hr.Object, "status", "history"); len(hist) > 0 {
		if m, ok := hist[0].(map[string]any); ok {
			if n, _ := m["name"].(string); n != "" {
				name = n
			}
		}
	}
	return sns + "/" + name
}

// helmReleaseController reads what chunkview shows of a HelmRelease.
func helmReleaseController(hr *unstructured.Unstructured) *Controller {
	c := &Controller{Kind: KindHelmRelease, Namespace: hr.GetNamespace(), Name: hr.GetName()}
	c.Suspended, _, _ = unstructured.NestedBool(hr.Object, "spec", "suspend")
	c.LastAttempted, _, _ = unstructured.NestedString(hr.Object, "status", "lastAttemptedRevision")
	c.Ready, c.ReadyMessage = readyCondition(hr)
	return c
}

// extensionController reads what chunkview shows of a ClusterExtension.
func extensionController(ext *unstructured.Unstructured) *Controller {
	c := &Controller{Kind: KindClusterExtension, Name: ext.GetName()}
	c.InstallNamespace, _, _ = unstructured.NestedString(ext.Object, "spec", "namespace")
	c.Package, _, _ = unstructured.NestedString(ext.Object, "spec", "source", "catalog", "packageName")
	_, b := extensionStatus(ext)
	c.Bundle, c.BundleVersion = b.Name, b.Version
	c.Ready, c.ReadyMessage = readyCondition(ext)
	if c.Ready == "" {
		// OLMv1 reports Installed and Progressing rather than Ready.
		for _, cond := range conditions(ext) {
			if cond.Type == "Installed" {
				c.Ready, c.ReadyMessage = cond.Status, cond.Message
			}
		}
	}
	return c
}

// readyCondition returns the status and message of obj's Ready condition.
func readyCondition(obj *unstructured.Unstructured) (string, string) {
	for _, cond := range conditions(obj) {
		if cond.Type == "Ready" {
			return cond.Status, cond.Message
		}
	}
	return "", ""
}

func conditions(obj *unstructured.Unstructured) []ExtensionCondition {
	conds, _ := extensionStatus(obj)
	return conds
}

// Unreadable says, per kind of controller (KindHelmRelease,
// KindClusterExtension), why it could not be read; empty when all could.
func (cs *Controllers) Unreadable() map[string]string {
	if cs == nil {
		return nil
	}
	return cs.unreadable
}

// Of returns the controller of the release whose revision row is, nil when none
// manages it, and whether a kind of controller could not be read (then that
// nothing was found does not mean none manages it).
func (cs *Controllers) Of(r RevisionRow) (*Controller, string) {
	if cs == nil {
		return nil, ""
	}
	if name := ExtensionName(r); name != "" {
		if e := cs.extensions[name]; e != nil {
			return e, ""
		}
		if why := cs.unreadable[KindClusterExtension]; why != "" {
			return &Controller{Kind: KindClusterExtension, Name: name, Unreadable: why}, why
		}
		// The owner reference names an extension that is gone: nothing
		// reconciles the release any more.
		return nil, ""
	}
	if hr := cs.byRelease[r.StorageNamespace+"/"+r.Name]; hr != nil {
		return hr, ""
	}
	return nil, cs.unreadable[KindHelmRelease]
}

// OLMv1's labels on the index Secrets of an extension's release.
const (
	olmPackageLabel       = "olm.operatorframework.io/package-name"
	olmBundleNameLabel    = "olm.operatorframework.io/bundle-name"
	olmBundleVersionLabel = "olm.operatorframework.io/bundle-version"
)

// Attach sets each row's Controller. For the release of an OLMv1 extension it
// also fills, from the extension and the record's labels, what a listing shows
// without reading the record's data: the namespace its resources live in (the
// extension's spec.namespace), its package as the chart and its bundle's version
// as the chart version. Such a row is Known and Peeked, its sizes and chunk count
// not known (see RevisionRow.Peeked).
func (cs *Controllers) Attach(rows []*RevisionRow) {
	for _, r := range rows {
		ctl, _ := cs.Of(*r)
		r.Controller = ctl
		if ctl == nil {
			continue
		}
		if ctl.Kind == KindHelmRelease {
			r.ControlledBy = ctl.ID()
			continue
		}
		if ctl.Unreadable != "" {
			continue
		}
		if ctl.InstallNamespace != "" && (!r.Known || r.NamespaceUnknown || r.Summary.Namespace == "" || r.Summary.Namespace == r.StorageNamespace) {
			r.Summary.Namespace, r.NamespaceUnknown = ctl.InstallNamespace, false
		}
		if r.Known || r.Broken {
			continue
		}
		pkg := r.Labels[olmPackageLabel]
		if pkg == "" {
			pkg = ctl.Package
		}
		version := r.Labels[olmBundleVersionLabel]
		if version == "" && r.Labels[olmBundleNameLabel] == ctl.Bundle {
			version = ctl.BundleVersion
		}
		if pkg == "" {
			continue
		}
		r.Summary.Chart, r.Summary.ChartVersion = pkg, version
		r.Known, r.Peeked = true, true
	}
}

// ControllerOf reads the controller of one release, for an operation about to
// change it: the same reads as ReadControllers, a HelmRelease looked for in every
// namespace the user may list (it may keep its release's records elsewhere).
func (c *Client) ControllerOf(ctx context.Context, r RevisionRow) (*Controller, error) {
	cs, err := c.readControllers(ctx, r.StorageNamespace, true)
	if err != nil {
		return nil, err
	}
	ctl, why := cs.Of(r)
	if ctl == nil && why != "" {
		return nil, errors.New(why)
	}
	return ctl, nil
}
