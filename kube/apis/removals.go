package apis

import "k8s.io/apimachinery/pkg/runtime/schema"

// Removal is one API version Kubernetes stopped serving for a kind, and the
// version that replaces it: what k8s.io/api's lifecycle data said of it while
// it carried the type.
type Removal struct {
	// Group, Version and Kind are the removed API.
	Group, Version, Kind string
	// To is the group/version that serves the kind instead, "" when none does
	// (PodSecurityPolicy: nothing replaces it in Kubernetes).
	To string
	// RemovedIn is the Kubernetes release that stopped serving it.
	RemovedIn Version
}

// GVK is the removed API's group, version and kind.
func (r Removal) GVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

// removals are the removals of APIs that Helm charts carried, since 1.16, as
// the Kubernetes deprecated API migration guide lists them
// (https://kubernetes.io/docs/reference/using-api/deprecation-guide/, one
// section per release: #v1-16, #v1-22, #v1-25, ...) and each release's notes
// say. k8s.io/api's lifecycle data is asked first; this table answers where the
// data no longer carries the type (k8s.io/api drops a package some releases
// after its removal: autoscaling/v2beta1 and v2beta2, PodSecurityPolicy) or
// names no replacement (ValidatingAdmissionPolicy v1beta1, IPAddress,
// ServiceCIDR). TestRemovalsAgreeWithLifecycleData holds every entry the data
// also covers to what the data says.
var removals = []Removal{
	// 1.16: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16
	{"extensions", "v1beta1", "DaemonSet", "apps/v1", Version{1, 16}},
	{"extensions", "v1beta1", "Deployment", "apps/v1", Version{1, 16}},
	{"extensions", "v1beta1", "ReplicaSet", "apps/v1", Version{1, 16}},
	{"extensions", "v1beta1", "NetworkPolicy", "networking.k8s.io/v1", Version{1, 16}},
	{"extensions", "v1beta1", "PodSecurityPolicy", "", Version{1, 16}}, // moved to policy/v1beta1, itself removed in 1.25
	{"apps", "v1beta1", "Deployment", "apps/v1", Version{1, 16}},
	{"apps", "v1beta1", "StatefulSet", "apps/v1", Version{1, 16}},
	{"apps", "v1beta2", "DaemonSet", "apps/v1", Version{1, 16}},
	{"apps", "v1beta2", "Deployment", "apps/v1", Version{1, 16}},
	{"apps", "v1beta2", "ReplicaSet", "apps/v1", Version{1, 16}},
	{"apps", "v1beta2", "StatefulSet", "apps/v1", Version{1, 16}},

	// 1.22: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-22
	{"extensions", "v1beta1", "Ingress", "networking.k8s.io/v1", Version{1, 22}},
	{"networking.k8s.io", "v1beta1", "Ingress", "networking.k8s.io/v1", Version{1, 22}},
	{"networking.k8s.io", "v1beta1", "IngressClass", "networking.k8s.io/v1", Version{1, 22}},
	{"admissionregistration.k8s.io", "v1beta1", "MutatingWebhookConfiguration", "admissionregistration.k8s.io/v1", Version{1, 22}},
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingWebhookConfiguration", "admissionregistration.k8s.io/v1", Version{1, 22}},
	{"apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition", "apiextensions.k8s.io/v1", Version{1, 22}},
	{"apiregistration.k8s.io", "v1beta1", "APIService", "apiregistration.k8s.io/v1", Version{1, 22}},
	{"certificates.k8s.io", "v1beta1", "CertificateSigningRequest", "certificates.k8s.io/v1", Version{1, 22}},
	{"coordination.k8s.io", "v1beta1", "Lease", "coordination.k8s.io/v1", Version{1, 22}},
	{"rbac.authorization.k8s.io", "v1beta1", "ClusterRole", "rbac.authorization.k8s.io/v1", Version{1, 22}},
	{"rbac.authorization.k8s.io", "v1beta1", "ClusterRoleBinding", "rbac.authorization.k8s.io/v1", Version{1, 22}},
	{"rbac.authorization.k8s.io", "v1beta1", "Role", "rbac.authorization.k8s.io/v1", Version{1, 22}},
	{"rbac.authorization.k8s.io", "v1beta1", "RoleBinding", "rbac.authorization.k8s.io/v1", Version{1, 22}},
	{"scheduling.k8s.io", "v1beta1", "PriorityClass", "scheduling.k8s.io/v1", Version{1, 22}},
	{"storage.k8s.io", "v1beta1", "CSIDriver", "storage.k8s.io/v1", Version{1, 22}},
	{"storage.k8s.io", "v1beta1", "CSINode", "storage.k8s.io/v1", Version{1, 22}},
	{"storage.k8s.io", "v1beta1", "StorageClass", "storage.k8s.io/v1", Version{1, 22}},
	{"storage.k8s.io", "v1beta1", "VolumeAttachment", "storage.k8s.io/v1", Version{1, 22}},

	// 1.25: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-25
	{"batch", "v1beta1", "CronJob", "batch/v1", Version{1, 25}},
	{"discovery.k8s.io", "v1beta1", "EndpointSlice", "discovery.k8s.io/v1", Version{1, 25}},
	{"events.k8s.io", "v1beta1", "Event", "events.k8s.io/v1", Version{1, 25}},
	{"autoscaling", "v2beta1", "HorizontalPodAutoscaler", "autoscaling/v2", Version{1, 25}},
	{"policy", "v1beta1", "PodDisruptionBudget", "policy/v1", Version{1, 25}},
	{"policy", "v1beta1", "PodSecurityPolicy", "", Version{1, 25}}, // no successor: Pod Security Admission is configured, not an object
	{"node.k8s.io", "v1beta1", "RuntimeClass", "node.k8s.io/v1", Version{1, 25}},

	// 1.26: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-26
	{"flowcontrol.apiserver.k8s.io", "v1beta1", "FlowSchema", "flowcontrol.apiserver.k8s.io/v1", Version{1, 26}},
	{"flowcontrol.apiserver.k8s.io", "v1beta1", "PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io/v1", Version{1, 26}},
	{"autoscaling", "v2beta2", "HorizontalPodAutoscaler", "autoscaling/v2", Version{1, 26}},

	// 1.27: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-27
	{"storage.k8s.io", "v1beta1", "CSIStorageCapacity", "storage.k8s.io/v1", Version{1, 27}},

	// 1.29: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-29
	{"flowcontrol.apiserver.k8s.io", "v1beta2", "FlowSchema", "flowcontrol.apiserver.k8s.io/v1", Version{1, 29}},
	{"flowcontrol.apiserver.k8s.io", "v1beta2", "PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io/v1", Version{1, 29}},

	// 1.32: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-32
	{"flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema", "flowcontrol.apiserver.k8s.io/v1", Version{1, 32}},
	{"flowcontrol.apiserver.k8s.io", "v1beta3", "PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io/v1", Version{1, 32}},

	// 1.34: ValidatingAdmissionPolicy went GA in 1.30; v1beta1 stopped being served in 1.34.
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy", "admissionregistration.k8s.io/v1", Version{1, 34}},
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicyBinding", "admissionregistration.k8s.io/v1", Version{1, 34}},

	// 1.37: IPAddress and ServiceCIDR went GA in 1.33, VolumeAttributesClass in 1.34.
	{"networking.k8s.io", "v1beta1", "IPAddress", "networking.k8s.io/v1", Version{1, 37}},
	{"networking.k8s.io", "v1beta1", "ServiceCIDR", "networking.k8s.io/v1", Version{1, 37}},
	{"storage.k8s.io", "v1beta1", "VolumeAttributesClass", "storage.k8s.io/v1", Version{1, 37}},
}

// removalOf returns the table's entry for gvk.
func removalOf(gvk schema.GroupVersionKind) (Removal, bool) {
	for _, r := range removals {
		if r.GVK() == gvk {
			return r, true
		}
	}
	return Removal{}, false
}

// Removals returns the table, for the tests and the docs.
func Removals() []Removal { return append([]Removal(nil), removals...) }
