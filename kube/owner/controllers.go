package owner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/chunkview/chunkview/kube"
)

// controllerAPIs are the controllers' resources discovery found served.
type controllerAPIs struct {
	helmReleases, extensions *schema.GroupVersionResource
}

// discoverControllers asks discovery which of the controllers' APIs are served:
// the group list, then the resources of Flux's and OLMv1's preferred versions.
// A group that is absent costs nothing more.
func discoverControllers(c Source) (controllerAPIs, error) {
	var out controllerAPIs
	groups, err := discoveryOf(c).ServerGroups()
	if err != nil {
		return out, err
	}
	for _, g := range groups.Groups {
		var kind string
		var dst **schema.GroupVersionResource
		switch g.Name {
		case kube.FluxHelmGroup:
			kind, dst = kube.KindHelmRelease, &out.helmReleases
		case kube.OLMGroup:
			kind, dst = kube.KindClusterExtension, &out.extensions
		default:
			continue
		}
		versions := g.Versions
		sort.SliceStable(versions, func(i, j int) bool { return versions[i].Version == g.PreferredVersion.Version })
		for _, v := range versions {
			if *dst != nil {
				break
			}
			list, err := discoveryOf(c).ServerResourcesForGroupVersion(v.GroupVersion)
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
	byRelease map[string]*kube.Controller
	// extensions maps a ClusterExtension's name to it.
	extensions map[string]*kube.Controller
	// unreadable, per kind, says why that kind could not be listed.
	unreadable map[string]string
}

// Read lists the controllers that may manage the releases in view:
// with one list of HelmReleases across namespaces (a HelmRelease may live
// apart from its release: Flux keeps them in flux-system, with targetNamespace
// and storageNamespace elsewhere; when that list is forbidden, in namespace ns,
// FluxNamespace and the configuration's fallback namespaces) and one
// cluster-scoped list of ClusterExtensions, after a discovery of which are
// served. A kind whose API is not served costs nothing past discovery and is not
// mentioned; one the user may not read, or not everywhere, is noted as not
// readable, with where it was looked for. It fails only when discovery fails.
func Read(ctx context.Context, c Source, ns string) (*Controllers, error) {
	return read(ctx, c, ns, true)
}

// read is Read; across lists HelmReleases in every
// namespace first (falling back to ns when that is forbidden).
func read(ctx context.Context, c Source, ns string, across bool) (*Controllers, error) {
	out := &Controllers{byRelease: map[string]*kube.Controller{}, extensions: map[string]*kube.Controller{}, unreadable: map[string]string{}}
	if c.Dynamic() == nil {
		return out, nil
	}
	apis, err := discoverControllers(c)
	if err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			out.unreadable[kube.KindHelmRelease] = "not readable: " + unreadable(err, "list", "API groups")
			out.unreadable[kube.KindClusterExtension] = out.unreadable[kube.KindHelmRelease]
			return out, nil
		}
		return nil, err
	}
	if apis.helmReleases != nil {
		list, partial, err := listHelmReleases(ctx, c, *apis.helmReleases, ns, across)
		switch {
		case err != nil:
			out.unreadable[kube.KindHelmRelease] = "not readable: " + unreadable(err, "list", apis.helmReleases.GroupResource().String())
		case partial != "":
			out.unreadable[kube.KindHelmRelease] = partial
		}
		for i := range list {
			hr := helmReleaseController(&list[i])
			out.byRelease[helmReleaseKey(&list[i])] = hr
		}
	}
	if apis.extensions != nil {
		list, err := c.Dynamic().Resource(*apis.extensions).List(ctx, metav1.ListOptions{})
		if err != nil {
			out.unreadable[kube.KindClusterExtension] = "not readable: " + unreadable(err, "list", apis.extensions.GroupResource().String())
		} else {
			for i := range list.Items {
				e := extensionController(&list.Items[i])
				out.extensions[e.Name] = e
			}
		}
	}
	return out, nil
}

// FluxNamespace is where Flux keeps its HelmReleases by default: looked in when
// HelmReleases may not be listed across namespaces.
const FluxNamespace = "flux-system"

// listHelmReleases lists HelmReleases across all namespaces; in ns alone unless
// across. When the list across namespaces is forbidden, it lists them in ns,
// FluxNamespace and the configuration's fallback namespaces, each that may be
// listed, and partial says what it could not learn: a HelmRelease elsewhere was
// not seen. It fails when none could be listed.
func listHelmReleases(ctx context.Context, c Source, gvr schema.GroupVersionResource, ns string, across bool) (items []unstructured.Unstructured, partial string, err error) {
	if !across {
		list, err := c.Dynamic().Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, "", err
		}
		return list.Items, "", nil
	}
	list, err := c.Dynamic().Resource(gvr).List(ctx, metav1.ListOptions{})
	if err == nil || !apierrors.IsForbidden(err) {
		if err != nil {
			return nil, "", err
		}
		return list.Items, "", nil
	}
	forbidden := err
	var looked []string
	for _, n := range append([]string{ns, FluxNamespace}, c.Config().FallbackNamespaces...) {
		if n == "" || slices.Contains(looked, n) {
			continue
		}
		l, err := c.Dynamic().Resource(gvr).Namespace(n).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		looked = append(looked, n)
		items = append(items, l.Items...)
	}
	if len(looked) == 0 {
		return nil, "", forbidden
	}
	return items, fmt.Sprintf("not readable in every namespace: %s; looked in %s only (--namespaces names others)",
		unreadable(forbidden, "list", gvr.GroupResource().String()+" -A"), strings.Join(looked, ", ")), nil
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
func helmReleaseController(hr *unstructured.Unstructured) *kube.Controller {
	c := &kube.Controller{Kind: kube.KindHelmRelease, Namespace: hr.GetNamespace(), Name: hr.GetName()}
	c.Suspended, _, _ = unstructured.NestedBool(hr.Object, "spec", "suspend")
	c.LastAttempted, _, _ = unstructured.NestedString(hr.Object, "status", "lastAttemptedRevision")
	c.Ready, c.ReadyMessage = readyCondition(hr)
	return c
}

// extensionController reads what chunkview shows of a ClusterExtension.
func extensionController(ext *unstructured.Unstructured) *kube.Controller {
	c := &kube.Controller{Kind: kube.KindClusterExtension, Name: ext.GetName()}
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

func conditions(obj *unstructured.Unstructured) []kube.ExtensionCondition {
	conds, _ := extensionStatus(obj)
	return conds
}

// Unreadable says, per kind of controller (kube.KindHelmRelease,
// kube.KindClusterExtension), why it could not be read; empty when all could.
func (cs *Controllers) Unreadable() map[string]string {
	if cs == nil {
		return nil
	}
	return cs.unreadable
}

// Of returns the controller of the release whose revision row is, nil when none
// manages it, and whether a kind of controller could not be read (then that
// nothing was found does not mean none manages it).
func (cs *Controllers) Of(r kube.RevisionRow) (*kube.Controller, string) {
	if cs == nil {
		return nil, ""
	}
	if name := kube.ExtensionName(r); name != "" {
		if e := cs.extensions[name]; e != nil {
			return e, ""
		}
		if why := cs.unreadable[kube.KindClusterExtension]; why != "" {
			return &kube.Controller{Kind: kube.KindClusterExtension, Name: name, Unreadable: why}, why
		}
		// The owner reference names an extension that is gone: nothing
		// reconciles the release any more.
		return nil, ""
	}
	if hr := cs.byRelease[r.StorageNamespace+"/"+r.Name]; hr != nil {
		return hr, ""
	}
	return nil, cs.unreadable[kube.KindHelmRelease]
}

// OLMv1's labels on the index Secrets of an extension's release.
const (
	olmPackageLabel       = "olm.operatorframework.io/package-name"
	olmBundleNameLabel    = "olm.operatorframework.io/bundle-name"
	olmBundleVersionLabel = "olm.operatorframework.io/bundle-version"
)

// Attach sets each row's kube.Controller. For the release of an OLMv1 extension it
// also fills, from the extension and the record's labels, what a listing shows
// without reading the record's data: the namespace its resources live in (the
// extension's spec.namespace), its package as the chart and its bundle's version
// as the chart version. Such a row is Known and Peeked, its sizes and chunk count
// not known (see kube.RevisionRow.Peeked).
func (cs *Controllers) Attach(rows []*kube.RevisionRow) {
	for _, r := range rows {
		ctl, _ := cs.Of(*r)
		r.Controller = ctl
		if ctl == nil {
			continue
		}
		if ctl.Kind == kube.KindHelmRelease {
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

// Of reads the controller of one release, for an operation about to
// change it: the same reads as Read, a HelmRelease looked for in every
// namespace the user may list (it may keep its release's records elsewhere).
func Of(ctx context.Context, c Source, r kube.RevisionRow) (*kube.Controller, error) {
	cs, err := read(ctx, c, r.StorageNamespace, true)
	if err != nil {
		return nil, err
	}
	ctl, why := cs.Of(r)
	if ctl == nil && why != "" {
		return nil, errors.New(why)
	}
	return ctl, nil
}
