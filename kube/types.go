package kube

import (
	"fmt"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// RevisionRow is one revision as a listing shows it, read from index Secret metadata
// alone. Fields that need the payload are filled from chunkview's annotations when
// the record carries them, otherwise by Details on demand.
type RevisionRow struct {
	// chunkNames are the extra chunks the index names, when its metadata records
	// them (chunkNamesKnown): the health check looks for each by name.
	chunkNames      []string
	chunkNamesKnown bool

	// Driver is the store that holds the record: DriverChunked, DriverSecret or
	// DriverConfigMap ("" is read as chunked).
	Driver string `json:"driver"`
	// StorageNamespace is where the record (index and chunk Secrets, or Helm's
	// Secret or ConfigMap) lives.
	StorageNamespace string `json:"storageNamespace"`
	Name             string `json:"name"`
	Revision         int    `json:"revision"`
	Status           string `json:"status"`
	Key              string `json:"key"`
	// Updated is when Helm last deployed the revision (info.last_deployed), as
	// `helm history` shows it, once the record's summary is known; until then,
	// when the record was last written (the index's modifiedAt, else createdAt,
	// else the object's creation time). UpdatedFrom says which.
	Updated     time.Time `json:"updated"`
	UpdatedFrom string    `json:"updatedFrom,omitempty"`
	// Summary holds chart, versions, sizes and chunk count when known.
	Summary storage.Summary `json:"summary"`
	// Known reports whether Summary has been filled (from annotations or a decode).
	Known bool `json:"known"`
	// Peeked is set when Summary was read from the index Secret's own slice alone
	// (see Client.FillSummaries), not decoded: its chart, versions, description,
	// deploy time and chunk count are known; its release namespace and
	// DecodedBytes are not (left empty), nor StoredBytes unless the record is
	// one chunk. StoredAtMost bounds StoredBytes then.
	Peeked bool `json:"peeked,omitempty"`
	// StoredAtMost is, for a Peeked row of n > 1 chunks whose index slice is L
	// bytes, n×L: every slice but the last is L bytes, so the record takes more
	// than (n-1)×L and at most n×L bytes. 0 otherwise.
	StoredAtMost int64 `json:"storedAtMost,omitempty"`
	// NamespaceUnknown is set on a Peeked row whose records are kept in a storage
	// namespace (OLMv1): its release's own namespace, encoded at the end of the
	// payload, is not known, and the namespace that holds its records is not it.
	// Without a storage namespace, a release's records are in its namespace.
	NamespaceUnknown bool `json:"namespaceUnknown,omitempty"`
	// Broken is set when the revision could not be decoded or misses chunk
	// Secrets; Problem says why.
	Broken  bool   `json:"broken,omitempty"`
	Problem string `json:"problem,omitempty"`
	// Checked is set once the revision's chunk Secrets were found all there (from
	// metadata, see CheckHealth) or it was decoded whole. A row neither Checked
	// nor Broken was not checked; Unchecked says why.
	Checked   bool   `json:"checked"`
	Unchecked string `json:"unchecked,omitempty"`
	// Writing is set when chunks are missing but the index was written moments
	// ago (see WritingWindow): another writer is probably storing the record.
	Writing bool `json:"writing,omitempty"`
	// Written is when the index was last written, from its labels.
	Written time.Time `json:"-"`
	// ResourceVersion of the index, used to key cached details.
	ResourceVersion string `json:"-"`
	// LimitBytes is the most one revision may take in its store with the
	// settings in use (see Client.Limit); 0 when the store sets none.
	LimitBytes int64 `json:"limitBytes"`
	// ApplyMethod is Helm 4's apply_method of the revision, when it has one.
	ApplyMethod string `json:"applyMethod,omitempty"`
	// Controller is what reconciles the release (a Flux HelmRelease, an OLMv1
	// ClusterExtension), once read (Controllers.Attach); nil when none does or
	// none was read.
	Controller *Controller `json:"controller,omitempty"`
	// PendingIndex, on the latest row of a release in a listing, is the
	// pending index of a later revision whose create was interrupted: the
	// release is blocked until it is removed. A release with a pending index
	// and no revision has a row of Status "pending-index" for it.
	PendingIndex *PendingIndex `json:"pendingIndex,omitempty"`
	// ControlledBy is "Kind/Name" of the record's controller ownerReference
	// (OLMv1: "ClusterExtension/NAME"), read from its metadata.
	ControlledBy string `json:"controlledBy,omitempty"`
	// Labels are the labels on the record's metadata that its store does not
	// manage (OLMv1's package-name, bundle-name and the like). The chunked
	// format keeps a release's custom labels in its payload; these are those
	// its writer also put on the index Secret.
	Labels map[string]string `json:"labels,omitempty"`
	// UnknownFields are the fields of the record that Helm 3's types do not
	// know (a record written by a newer Helm), once decoded: an operation that
	// would rewrite it through Helm 3 refuses.
	UnknownFields []string `json:"unknownFields,omitempty"`
}

// The times Updated can be.
const (
	// UpdatedDeployed: info.last_deployed, from the record's payload.
	UpdatedDeployed = "last_deployed"
	// UpdatedWritten: when the record was last written, from its metadata: for a
	// revision another writer superseded later, when it was superseded.
	UpdatedWritten = "written"
)

// settle sets Updated from what is known of the revision: its last deploy once
// its summary tells it, else when its record was written.
func (r *RevisionRow) settle() {
	if r.Known && !r.Summary.LastDeployed.IsZero() {
		r.Updated, r.UpdatedFrom = r.Summary.LastDeployed, UpdatedDeployed
		return
	}
	if r.Updated.IsZero() || r.UpdatedFrom != UpdatedDeployed {
		r.Updated, r.UpdatedFrom = r.Written, UpdatedWritten
	}
}

// driver returns the row's store, chunked when unset.
func (r RevisionRow) driver() string {
	if r.Driver == "" {
		return DriverChunked
	}
	return r.Driver
}

// Fill is the share of its store's limit the revision takes (0 when either is
// unknown).
func (r RevisionRow) Fill() float64 {
	if r.LimitBytes <= 0 || !r.Known || r.Summary.StoredBytes <= 0 {
		return 0
	}
	return float64(r.Summary.StoredBytes) / float64(r.LimitBytes)
}

// FillAtMost is the most of its store's limit the revision may take: Fill when
// its size is known, else the share StoredAtMost takes (0 when neither is).
func (r RevisionRow) FillAtMost() float64 {
	if f := r.Fill(); f > 0 || r.StoredAtMost <= 0 || r.LimitBytes <= 0 {
		return f
	}
	return float64(r.StoredAtMost) / float64(r.LimitBytes)
}

// ReleaseRow is one release: its latest revision and how many revisions are stored.
type ReleaseRow struct {
	Latest    RevisionRow `json:"latest"`
	Revisions int         `json:"revisions"`
	// History holds every revision's row, oldest first, from metadata alone,
	// when the release was looked up by name (Client.ReleasesNamed): what a
	// command by name plans from, without listing again.
	History []RevisionRow `json:"-"`
	// sizes are the stored bytes of the revisions whose size the listing
	// learned, by revision (see HistoryBytes).
	sizes map[int]int64
}

// InFlight reports whether status is one an operation leaves while it runs, and
// behind it when it is interrupted: pending-install, -upgrade, -rollback, or
// uninstalling.
func InFlight(status string) bool { return Pending(status) || status == "uninstalling" }

// Pending reports whether the status is one of Helm's pending states.
func Pending(status string) bool {
	switch status {
	case "pending-install", "pending-upgrade", "pending-rollback":
		return true
	}
	return false
}

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

// PendingIndex is the pending index of a create that never completed: the
// index Secret a create of several chunks writes first (labelled type=pending,
// no data; see storage.IsPending), left behind when the create was cut short.
// It holds no release, and until it is removed every create of that revision
// fails as already existing, an operator's next upgrade included. verify
// reports it and gc removes it once it is older than storage.PendingLease.
type PendingIndex struct {
	// Key is the record it would have been: sh.helm.release.v1.NAME.vN.
	Key      string `json:"key"`
	Revision int    `json:"revision"`
	// Created is when it was written (its creationTimestamp).
	Created time.Time `json:"created"`
}

// NamespaceReport is the verification of one storage namespace.
type NamespaceReport struct {
	Namespace string `json:"namespace"`
	// Driver is the store checked.
	Driver string `json:"driver"`
	*storage.Report
}

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

// Details is what a revision's payload tells beyond its metadata.
type Details struct {
	Row     RevisionRow
	Release *release.Release
}
