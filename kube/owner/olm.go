package owner

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

	"github.com/chunkview/chunkview/kube"
)

// olmResources are the OLMv1 resources discovery found served.
type olmResources struct {
	extensions, objectSets *schema.GroupVersionResource
}

// discoverOLM asks discovery which versions of OLMv1's group are served, and the
// resources of the kinds chunkview reads: the group list, then each version's
// resources (usually one). Absent, both are nil.
func discoverOLM(c Source) (olmResources, error) {
	var out olmResources
	groups, err := discoveryOf(c).ServerGroups()
	if err != nil {
		return out, err
	}
	for _, g := range groups.Groups {
		if g.Name != kube.OLMGroup {
			continue
		}
		versions := g.Versions
		// The preferred version first: its resources win.
		sort.SliceStable(versions, func(i, j int) bool { return versions[i].Version == g.PreferredVersion.Version })
		for _, v := range versions {
			list, err := discoveryOf(c).ServerResourcesForGroupVersion(v.GroupVersion)
			if err != nil {
				return out, err
			}
			for _, r := range list.APIResources {
				if strings.Contains(r.Name, "/") {
					continue // a subresource
				}
				gvr := schema.GroupVersionResource{Group: kube.OLMGroup, Version: v.Version, Resource: r.Name}
				switch {
				case r.Kind == kube.KindClusterExtension && out.extensions == nil:
					out.extensions = &gvr
				case r.Kind == kube.KindClusterObjectSet && out.objectSets == nil:
					out.objectSets = &gvr
				}
			}
		}
	}
	return out, nil
}

// Extension reads what OLMv1 says about extension name: its conditions and
// installed bundle (one GET through the dynamic client), and whether its revisions
// moved to ClusterObjectSets (one metadata list). It never fails: it returns nil
// when OLMv1's ClusterExtension API is not served (or no dynamic client was
// given), and an extension with Unreadable set when it could not be read.
func Extension(ctx context.Context, c Source, name string) *kube.ClusterExtension {
	if c.Dynamic() == nil || name == "" {
		return nil
	}
	res, err := discoverOLM(c)
	if err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			return &kube.ClusterExtension{Name: name, Unreadable: unreadable(err, "list", "API groups")}
		}
		return nil
	}
	if res.extensions == nil {
		return nil
	}
	e := &kube.ClusterExtension{Name: name}
	obj, err := c.Dynamic().Resource(*res.extensions).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		e.Unreadable = unreadable(err, "get", res.extensions.GroupResource().String())
		return e
	}
	e.Conditions, e.Bundle = extensionStatus(obj)
	if res.objectSets != nil {
		e.ObjectSet, e.ObjectSets, err = newestObjectSet(ctx, c, *res.objectSets, obj)
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
func extensionStatus(obj *unstructured.Unstructured) ([]kube.ExtensionCondition, kube.InstalledBundle) {
	var conds []kube.ExtensionCondition
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		conds = append(conds, kube.ExtensionCondition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message")})
	}
	var b kube.InstalledBundle
	b.Name, _, _ = unstructured.NestedString(obj.Object, "status", "install", "bundle", "name")
	b.Version, _, _ = unstructured.NestedString(obj.Object, "status", "install", "bundle", "version")
	return conds, b
}

// newestObjectSet lists ClusterObjectSet metadata and returns the newest of those
// that belong to extension ext (an ownerReference to it, or OLM's owner label),
// and how many do.
func newestObjectSet(ctx context.Context, c Source, gvr schema.GroupVersionResource, ext *unstructured.Unstructured) (string, int, error) {
	list, err := c.Metadata().Resource(gvr).List(ctx, metav1.ListOptions{})
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
		if ref.Kind == kube.KindClusterExtension && (ref.UID == ext.GetUID() || ref.Name == ext.GetName()) {
			return true
		}
	}
	lbs := m.Labels
	return lbs[kube.OLMOwnerLabel] == ext.GetName() || (lbs[kube.OLMOwnerKindLabel] == kube.KindClusterExtension && lbs[kube.OLMOwnerNameLabel] == ext.GetName())
}
