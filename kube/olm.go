package kube

import "strings"

// OLM's labels that name the owner of a release (OLMOwnerKindLabel and
// OLMOwnerNameLabel) or of a ClusterObjectSet (OLMOwnerLabel), read when no
// controller ownerReference does.
const (
	// OLMOwnerKindLabel is the kind of a release's owner (KindClusterExtension).
	OLMOwnerKindLabel = "olm.operatorframework.io/owner-kind"
	// OLMOwnerNameLabel is the name of a release's owner.
	OLMOwnerNameLabel = "olm.operatorframework.io/owner-name"
	// OLMOwnerLabel is the extension a ClusterObjectSet belongs to.
	OLMOwnerLabel = "olm.operatorframework.io/owner"
)

// ExtensionName returns the ClusterExtension that owns the release of row r: its
// controller ownerReference, else OLM's owner labels; "" when none says.
func ExtensionName(r RevisionRow) string {
	if kind, name, ok := strings.Cut(r.ControlledBy, "/"); ok && kind == KindClusterExtension {
		return name
	}
	if r.Labels[OLMOwnerKindLabel] == KindClusterExtension {
		return r.Labels[OLMOwnerNameLabel]
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
