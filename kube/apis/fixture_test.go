package apis

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// servedFixture builds Served as NewServed builds it from a discovery
// answer: kinds by group version (each group's first listed version is its
// preferred one), and group versions discovery failed to read. The tests that
// hold detection to a real API server's discovery are in kube/ops and cli;
// these test the pure logic over answers written out by hand.
func servedFixture(v Version, kinds map[string][]string, order map[string][]string, failed ...string) *Served {
	groups := map[string]*metav1.APIGroup{}
	var lists []*metav1.APIResourceList
	gvs := make([]string, 0, len(kinds))
	for gv := range kinds {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs)
	for _, s := range gvs {
		gv, _ := schema.ParseGroupVersion(s)
		g := groups[gv.Group]
		if g == nil {
			g = &metav1.APIGroup{Name: gv.Group}
			groups[gv.Group] = g
		}
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: s, Version: gv.Version})
		l := &metav1.APIResourceList{GroupVersion: s}
		for _, k := range kinds[s] {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: k + "s", Kind: k})
		}
		// A subresource whose kind is not the group's: never an object.
		l.APIResources = append(l.APIResources, metav1.APIResource{Name: "things/scale", Kind: "Scale"})
		lists = append(lists, l)
	}
	for name, g := range groups {
		g.PreferredVersion = g.Versions[0]
		if o, ok := order[name]; ok {
			g.PreferredVersion = metav1.GroupVersionForDiscovery{Version: o[0], GroupVersion: schema.GroupVersion{Group: name, Version: o[0]}.String()}
		}
	}
	failedErr := &discovery.ErrGroupDiscoveryFailed{Groups: map[schema.GroupVersion]error{}}
	for _, f := range failed {
		gv, _ := schema.ParseGroupVersion(f)
		failedErr.Groups[gv] = errFailed
		g := groups[gv.Group]
		if g == nil {
			g = &metav1.APIGroup{Name: gv.Group, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: f, Version: gv.Version}}
			groups[gv.Group] = g
		}
	}
	var gl []*metav1.APIGroup
	for _, g := range groups {
		gl = append(gl, g)
	}
	var err error
	if len(failed) > 0 {
		err = failedErr
	}
	return NewServed(gl, lists, err, v)
}

type fixtureErr string

func (e fixtureErr) Error() string { return string(e) }

const errFailed = fixtureErr("the server is currently unable to handle the request")

// cluster137 is what a 1.37 API server serves of the kinds the tests use,
// with a custom resource group whose CRD serves v1 and v2 (v1alpha1 was
// removed from its spec.versions), DRA's v1beta1 still served, and an
// aggregated API whose discovery fails.
func cluster137() *Served {
	return servedFixture(Version{1, 37}, map[string][]string{
		"v1":                                   {"ConfigMap", "Secret", "Service", "ServiceAccount", "Pod", "List"},
		"apps/v1":                              {"Deployment", "DaemonSet", "StatefulSet", "ReplicaSet"},
		"batch/v1":                             {"Job", "CronJob"},
		"policy/v1":                            {"PodDisruptionBudget"},
		"autoscaling/v1":                       {"HorizontalPodAutoscaler"},
		"autoscaling/v2":                       {"HorizontalPodAutoscaler"},
		"networking.k8s.io/v1":                 {"Ingress", "IngressClass", "NetworkPolicy", "IPAddress", "ServiceCIDR"},
		"flowcontrol.apiserver.k8s.io/v1":      {"FlowSchema", "PriorityLevelConfiguration"},
		"storage.k8s.io/v1":                    {"StorageClass", "VolumeAttributesClass", "CSIDriver"},
		"rbac.authorization.k8s.io/v1":         {"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"},
		"admissionregistration.k8s.io/v1":      {"ValidatingAdmissionPolicy", "MutatingWebhookConfiguration"},
		"admissionregistration.k8s.io/v1beta1": {"MutatingAdmissionPolicy"},
		"resource.k8s.io/v1":                   {"DeviceClass", "ResourceClaim"},
		"resource.k8s.io/v1beta1":              {"DeviceClass", "ResourceClaim"},
		"example.com/v1":                       {"Widget"},
		"example.com/v2":                       {"Widget"},
	}, map[string][]string{"example.com": {"v2"}, "resource.k8s.io": {"v1"}, "admissionregistration.k8s.io": {"v1"}}, "metrics.k8s.io/v1beta1")
}
