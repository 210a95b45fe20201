package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/chunkview/chunkview/storage"
)

// OLMv1's API, as chunkview reads it: the ClusterExtension that owns a release,
// and the ClusterObjectSets its newer runtime (BoxcutterRuntime) keeps revisions
// in once it has migrated the last Helm release.
const (
	// OLMGroup is OLMv1's API group.
	OLMGroup = "olm.operatorframework.io"
	// KindClusterExtension is the kind of an OLMv1 extension; its controller
	// ownerReference marks the index Secrets of its Helm release.
	KindClusterExtension = "ClusterExtension"
	// KindClusterObjectSet is the kind that holds an extension's revisions under
	// the Boxcutter runtime.
	KindClusterObjectSet = "ClusterObjectSet"
)

// OLM's labels that name the owner of a release or of a ClusterObjectSet, read
// when no controller ownerReference does.
const (
	olmOwnerKindLabel = "olm.operatorframework.io/owner-kind"
	olmOwnerNameLabel = "olm.operatorframework.io/owner-name"
	olmOwnerLabel     = "olm.operatorframework.io/owner"
)

// controlledBy is "Kind/Name" of m's controller ownerReference, "" without one.
func controlledBy(m metav1.Object) string {
	if ref := metav1.GetControllerOf(m); ref != nil {
		return ref.Kind + "/" + ref.Name
	}
	return ""
}

// customLabelsOf returns the labels of m the driver does not manage (see
// storage.IsSystemLabel); nil when there are none.
func customLabelsOf(m metav1.Object) map[string]string {
	var out map[string]string
	for k, v := range m.GetLabels() {
		if storage.IsSystemLabel(k) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// ExtensionName returns the ClusterExtension that owns the release of row r: its
// controller ownerReference, else OLM's owner labels; "" when none says.
func ExtensionName(r RevisionRow) string {
	if kind, name, ok := strings.Cut(r.ControlledBy, "/"); ok && kind == KindClusterExtension {
		return name
	}
	if r.Labels[olmOwnerKindLabel] == KindClusterExtension {
		return r.Labels[olmOwnerNameLabel]
	}
	return ""
}

// ExtensionCondition is one condition of a ClusterExtension's status.
type ExtensionCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// InstalledBundle is the bundle a ClusterExtension reports installed.
type InstalledBundle struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ClusterExtension is what OLMv1 says about the extension that owns a release.
type ClusterExtension struct {
	Name string `json:"name"`
	// Unreadable, when set, says why the extension could not be read (refused,
	// not found); the other fields are then empty.
	Unreadable string `json:"unreadable,omitempty"`
	// Conditions are the status conditions, as the extension lists them.
	Conditions []ExtensionCondition `json:"conditions,omitempty"`
	// Bundle is status.install.bundle; empty before an install.
	Bundle InstalledBundle `json:"installedBundle"`
	// ObjectSet names the newest ClusterObjectSet of the extension (by creation
	// time) when there is one: OLMv1's Boxcutter runtime has taken over, and the
	// Helm records are history. ObjectSets counts them.
	ObjectSet  string `json:"objectSet,omitempty"`
	ObjectSets int    `json:"objectSets,omitempty"`
	// ObjectSetsUnreadable says why the ClusterObjectSets could not be listed.
	ObjectSetsUnreadable string `json:"objectSetsUnreadable,omitempty"`
}

// Historical reports whether OLMv1 keeps the extension's revisions as
// ClusterObjectSets now, so the Helm records are history.
func (e *ClusterExtension) Historical() bool { return e != nil && e.ObjectSets > 0 }

// olmResources are the OLMv1 resources discovery found served.
type olmResources struct {
	extensions, objectSets *schema.GroupVersionResource
}

// discoverOLM asks discovery which versions of OLMv1's group are served, and the
// resources of the kinds chunkview reads: the group list, then each version's
// resources (usually one). Absent, both are nil.
func (c *Client) discoverOLM() (olmResources, error) {
	var out olmResources
	groups, err := c.cs.Discovery().ServerGroups()
	if err != nil {
		return out, err
	}
	for _, g := range groups.Groups {
		if g.Name != OLMGroup {
			continue
		}
		versions := g.Versions
		// The preferred version first: its resources win.
		sort.SliceStable(versions, func(i, j int) bool { return versions[i].Version == g.PreferredVersion.Version })
		for _, v := range versions {
			list, err := c.cs.Discovery().ServerResourcesForGroupVersion(v.GroupVersion)
			if err != nil {
				return out, err
			}
			for _, r := range list.APIResources {
				if strings.Contains(r.Name, "/") {
					continue // a subresource
				}
				gvr := schema.GroupVersionResource{Group: OLMGroup, Version: v.Version, Resource: r.Name}
				switch {
				case r.Kind == KindClusterExtension && out.extensions == nil:
					out.extensions = &gvr
				case r.Kind == KindClusterObjectSet && out.objectSets == nil:
					out.objectSets = &gvr
				}
			}
		}
	}
	return out, nil
}

// ClusterExtension reads what OLMv1 says about extension name: its conditions and
// installed bundle (one GET through the dynamic client), and whether its revisions
// moved to ClusterObjectSets (one metadata list). It never fails: it returns nil
// when OLMv1's ClusterExtension API is not served (or no dynamic client was
// given), and an extension with Unreadable set when it could not be read.
func (c *Client) ClusterExtension(ctx context.Context, name string) *ClusterExtension {
	if c.dyn == nil || name == "" {
		return nil
	}
	res, err := c.discoverOLM()
	if err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			return &ClusterExtension{Name: name, Unreadable: unreadable(err, "list", "API groups")}
		}
		return nil
	}
	if res.extensions == nil {
		return nil
	}
	e := &ClusterExtension{Name: name}
	obj, err := c.dyn.Resource(*res.extensions).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		e.Unreadable = unreadable(err, "get", res.extensions.GroupResource().String())
		return e
	}
	e.Conditions, e.Bundle = extensionStatus(obj)
	if res.objectSets != nil {
		e.ObjectSet, e.ObjectSets, err = c.newestObjectSet(ctx, *res.objectSets, obj)
		if err != nil {
			e.ObjectSetsUnreadable = unreadable(err, "list", res.objectSets.GroupResource().String())
		}
	}
	return e
}

// unreadable says why a read was refused, short, with the kubectl line to check.
func unreadable(err error, verb, resource string) string {
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("forbidden (kubectl auth can-i %s %s)", verb, resource)
	case apierrors.IsNotFound(err):
		return "not found"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	}
	return err.Error()
}

// extensionStatus reads status.conditions and status.install.bundle.
func extensionStatus(obj *unstructured.Unstructured) ([]ExtensionCondition, InstalledBundle) {
	var conds []ExtensionCondition
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		conds = append(conds, ExtensionCondition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message")})
	}
	var b InstalledBundle
	b.Name, _, _ = unstructured.NestedString(obj.Object, "status", "install", "bundle", "name")
	b.Version, _, _ = unstructured.NestedString(obj.Object, "status", "install", "bundle", "version")
	return conds, b
}

// newestObjectSet lists ClusterObjectSet metadata and returns the newest of those
// that belong to extension ext (an ownerReference to it, or OLM's owner label),
// and how many do.
func (c *Client) newestObjectSet(ctx context.Context, gvr schema.GroupVersionResource, ext *unstructured.Unstructured) (string, int, error) {
	list, err := c.md.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", 0, err
	}
	var (
		newest string
		at     time.Time
		n      int
	)
	for i := range list.Items {
		m := &list.Items[i]
		if !ownedByExtension(m, ext) {
			continue
		}
		n++
		t := m.CreationTimestamp.Time
		if newest == "" || t.After(at) || (t.Equal(at) && m.Name > newest) {
			newest, at = m.Name, t
		}
	}
	return newest, n, nil
}

// ownedByExtension reports whether object m belongs to extension ext.
func ownedByExtension(m *metav1.PartialObjectMetadata, ext *unstructured.Unstructured) bool {
	for _, ref := range m.OwnerReferences {
		if ref.Kind == KindClusterExtension && (ref.UID == ext.GetUID() || ref.Name == ext.GetName()) {
			return true
		}
	}
	lbs := m.Labels
	return lbs[olmOwnerLabel] == ext.GetName() || (lbs[olmOwnerKindLabel] == KindClusterExtension && lbs[olmOwnerNameLabel] == ext.GetName())
}
