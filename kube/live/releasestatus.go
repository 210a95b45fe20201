package live

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// The health of a release, in kstatus's words: sigs.k8s.io/cli-utils' kstatus
// computes each object's status from the object alone, as Helm 4 does when it
// waits. chunkview adds no rules of its own.
const (
	StatusCurrent     = string(status.CurrentStatus)
	StatusInProgress  = string(status.InProgressStatus)
	StatusFailed      = string(status.FailedStatus)
	StatusTerminating = string(status.TerminatingStatus)
	StatusNotFound    = string(status.NotFoundStatus)
	StatusUnknown     = string(status.UnknownStatus)
)

// ErrRecordUnreadable is wrapped by Status's error when the record of the
// revision it looks at cannot be decoded (missing or corrupt chunks): the
// objects it deployed are not known.
var ErrRecordUnreadable = errors.New("the revision's record cannot be read")

// ReleaseStatus is how one revision of a release runs: each object of its
// manifest with its kstatus, the last run of each of its hooks, and the recent
// Warning events of those objects. Text that came from the cluster (container
// logs and messages, event messages) is masked of the secrets the release holds
// unless Revealed.
type ReleaseStatus struct {
	Release   string `json:"release"`
	Namespace string `json:"namespace"`
	Revision  int    `json:"revision"`
	// ReleaseStatus is Helm's status of the revision (deployed, failed, ...).
	ReleaseStatus string    `json:"releaseStatus"`
	Description   string    `json:"description,omitempty"`
	LastDeployed  time.Time `json:"lastDeployed,omitzero"`
	// Store is the store that holds the release (chunked, secret, configmap)
	// and StorageNamespace where its records are.
	Store            string `json:"store"`
	StorageNamespace string `json:"storageNamespace"`
	// LatestRevision and LatestStatus name the latest revision when it is not
	// the one shown (a failed upgrade above the deployed revision, say).
	LatestRevision int    `json:"latestRevision,omitempty"`
	LatestStatus   string `json:"latestStatus,omitempty"`
	// Resources are the manifest's objects, in its order (by key).
	Resources []ResourceStatus `json:"resources"`
	// Hooks are the revision's hooks with their last run; nil when not asked.
	Hooks []HookStatus `json:"hooks"`
	// Events are the recent Warning events of the objects, newest first, at
	// most MaxStatusEvents; EventsOmitted counts the older ones left out.
	Events        []WarningEvent `json:"events"`
	EventsOmitted int            `json:"eventsOmitted,omitempty"`
	// Notes are the chart's NOTES as the revision rendered them (helm status's
	// NOTES), masked of the secrets the release holds unless Revealed.
	Notes string `json:"notes"`
	// Remarks are chunkview's: what could not be looked at, and why.
	Remarks []string `json:"remarks,omitempty"`
	// Pods are the Pods behind each workload of the manifest (Deployment,
	// StatefulSet, DaemonSet, Job), read when StatusOptions.Pods asks.
	Pods []WorkloadPods `json:"pods,omitempty"`
	// Revealed is set when nothing was masked (--reveal).
	Revealed bool `json:"revealed"`

	// objs are what the live view needs to follow each resource: its resource
	// and namespace, and whether the read found Helm's label on it.
	objs []statusObject
	// eventsRV is, by namespace, the resourceVersion of the Warning events list,
	// which the live view watches from.
	eventsRV map[string]string
	// scrub masks text from the cluster; it outlives the decoded release.
	scrub func(string) string
	// wanted are the objects whose events are shown (see eventMatcher).
	wanted *eventMatcher
}

// ResourceStatus is one object of the manifest and its health.
type ResourceStatus struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Status is kstatus's word: Current, InProgress, Failed, Terminating,
	// NotFound, or Unknown when the object could not be read or judged.
	Status  string `json:"status"`
	Message string `json:"message"`
}

// Key names the object as drift and kubectl do: "Kind/namespace/name", or
// "Kind/name" at the cluster scope.
func (r ResourceStatus) Key() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Current reports whether kstatus finds the object Current.
func (r ResourceStatus) Current() bool { return r.Status == StatusCurrent }

// Count returns how many of the objects have status st.
func (s *ReleaseStatus) Count(st string) int {
	n := 0
	for _, r := range s.Resources {
		if r.Status == st {
			n++
		}
	}
	return n
}

// Ready reports whether every object is Current.
func (s *ReleaseStatus) Ready() bool { return s.Count(StatusCurrent) == len(s.Resources) }

// NotReady returns the objects that are not Current.
func (s *ReleaseStatus) NotReady() []ResourceStatus {
	var out []ResourceStatus
	for _, r := range s.Resources {
		if !r.Current() {
			out = append(out, r)
		}
	}
	return out
}

// Copy returns a copy of s that shares nothing a later change of s touches.
func (s *ReleaseStatus) Copy() *ReleaseStatus {
	cp := *s
	cp.Resources = slices.Clone(s.Resources)
	cp.Events = slices.Clone(s.Events)
	cp.Hooks = slices.Clone(s.Hooks)
	cp.Remarks = slices.Clone(s.Remarks)
	cp.Pods = slices.Clone(s.Pods)
	return &cp
}

// StatusOptions say what Status looks at.
type StatusOptions struct {
	// Reveal shows logs and messages as they are instead of masking the
	// secrets the release holds.
	Reveal bool
	// ObjectsOnly reads the objects alone: no hooks, no events (a wait).
	ObjectsOnly bool
	// LogLines is how many lines of a failed hook container's log are shown:
	// DefaultLogLines when zero, none when negative.
	LogLines int
	// Logs reads containers' logs; nil reads them from the API server (the
	// pods/log subresource, which the kubelet serves).
	Logs LogSource
	// Pods lists the Pods behind each workload of the manifest (one list per
	// workload in the cluster).
	Pods bool
}

// DefaultLogLines is how much of a failed hook container's log Status shows.
const DefaultLogLines = 20

// statusObject is what the live view keeps of one resource.
type statusObject struct {
	target *target // nil when its kind is not served
	// labelled is set when the object was read carrying Helm's managed-by
	// label, so a watch selected by that label sees it.
	labelled bool
	// selector selects the Pods of a workload; noSelector says why a
	// workload has none.
	selector   labels.Selector
	noSelector string
}

// notFoundMessage is the message of an object that is not in the cluster.
const notFoundMessage = "not in the cluster: deleted, or never created"

// judge returns kstatus's status of a live object and its message.
func judge(obj map[string]any) (string, string) {
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	if err != nil {
		return StatusUnknown, "kstatus cannot judge it: " + err.Error()
	}
	return string(res.Status), res.Message
}

// Summary says in a few words how many objects are Current, and what the
// others are: "5 of 7 Current (1 InProgress, 1 NotFound)".
func (s *ReleaseStatus) Summary() string {
	cur := s.Count(StatusCurrent)
	if len(s.Resources) == 0 {
		return "no objects"
	}
	out := fmt.Sprintf("%d of %d Current", cur, len(s.Resources))
	var rest []string
	for _, st := range []string{StatusInProgress, StatusFailed, StatusTerminating, StatusNotFound, StatusUnknown} {
		if n := s.Count(st); n > 0 {
			rest = append(rest, fmt.Sprintf("%d %s", n, st))
		}
	}
	if len(rest) > 0 {
		out += " (" + strings.Join(rest, ", ") + ")"
	}
	return out
}

// HookStatus is one hook of the revision and its last run, as Helm recorded it
// in the release. For a Job whose last run failed or is still running, Job says
// how it stands in the cluster now.
type HookStatus struct {
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	Namespace string   `json:"namespace"`
	Events    []string `json:"events"`
	// DeletePolicies are its helm.sh/hook-delete-policy values.
	DeletePolicies []string `json:"deletePolicies,omitempty"`
	// Phase is the last run's: Succeeded, Failed, Running or Unknown; "" when
	// Helm never ran it (its events did not happen yet).
	Phase     string    `json:"phase"`
	Started   time.Time `json:"started,omitzero"`
	Completed time.Time `json:"completed,omitzero"`
	Job       *HookJob  `json:"job,omitempty"`
}

// WarningEvent is one Warning event of an object of the release, or of a Pod or
// ReplicaSet one of them runs.
type WarningEvent struct {
	Namespace string `json:"namespace"`
	// Object is the object the event is about: "Kind/name".
	Object string `json:"object"`
	// For names the release's object that runs Object, when Object is not one
	// of the release's own ("Deployment/web" for its Pods).
	For      string    `json:"for,omitempty"`
	Reason   string    `json:"reason"`
	Message  string    `json:"message"`
	Count    int32     `json:"count"`
	LastSeen time.Time `json:"lastSeen,omitzero"`

	uid string
}

// MaxStatusEvents bounds the events Status keeps: the newest.
const MaxStatusEvents = 50
