package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
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

// StatusRevision picks the revision `status` shows from rows, the release's
// history: rev when set; else the latest deployed, what the cluster should run;
// else, with no revision deployed (a failed install, one still pending), the
// latest. note says why when that is not the latest revision, or not a
// deployed one.
func StatusRevision(rows []kube.RevisionRow, name string, rev int) (row kube.RevisionRow, note string, err error) {
	if len(rows) == 0 {
		return kube.RevisionRow{}, "", fmt.Errorf("%w: release %q has no revisions", kube.ErrNotFound, name)
	}
	if rev != 0 {
		row, err := kube.PickRevision(rows, name, rev)
		return row, "", err
	}
	latest := rows[len(rows)-1]
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Status == release.StatusDeployed.String() {
			return rows[i], "", nil
		}
	}
	return latest, fmt.Sprintf("no revision of %q is deployed: showing the latest, %d (%s)", name, latest.Revision, latest.Status), nil
}

// Status reads how revision rev of release name (0: see StatusRevision) runs:
// its revisions' metadata (one list), the record (decoded through the details
// cache), then what StatusOf reads.
func Status(ctx context.Context, c Source, ns, name string, rev int, opts StatusOptions) (*ReleaseStatus, error) {
	if _, err := c.Live(); err != nil {
		return nil, err
	}
	rows, err := c.Versions(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return StatusOf(ctx, c, rows, rev, opts)
}

// StatusOf is Status over rows already read, the release's history (as a
// listing or a plan has them). It reads discovery once per connection, then one
// GET per object of the manifest (eight at a time), and unless ObjectsOnly: one
// list of Warning events per namespace of the objects (a field selector on the
// type), and for each hook Job whose last run failed or is still running, the
// Job, its Pods (one list) and the end of the failed container's log (one
// request).
func StatusOf(ctx context.Context, c Source, rows []kube.RevisionRow, rev int, opts StatusOptions) (*ReleaseStatus, error) {
	lc, err := c.Live()
	if err != nil {
		return nil, err
	}
	name := ""
	if len(rows) > 0 {
		name = rows[0].Name
	}
	row, note, err := StatusRevision(rows, name, rev)
	if err != nil {
		return nil, err
	}
	d, err := c.Details(ctx, row)
	if err != nil {
		return nil, err
	}
	if d.Release == nil {
		return nil, fmt.Errorf("%w: revision %d of %q: %s; its objects are not known (`%s` shows another)",
			ErrRecordUnreadable, row.Revision, row.Name, d.Row.Problem, c.Config().Suggest("status", row.Name, "--revision", "N"))
	}
	rel := d.Release
	st := &ReleaseStatus{
		Release: rel.Name, Namespace: rel.Namespace, Revision: rel.Version,
		Store: storeOf(row), StorageNamespace: row.StorageNamespace,
		Revealed: opts.Reveal, scrub: revdiff.Scrubber(rel, opts.Reveal),
		Events: []WarningEvent{},
	}
	if rel.Info != nil {
		st.Notes = st.scrub(rel.Info.Notes)
		st.ReleaseStatus, st.Description, st.LastDeployed = rel.Info.Status.String(), rel.Info.Description, rel.Info.LastDeployed.Time
	}
	if latest := rows[len(rows)-1]; latest.Revision != rel.Version {
		st.LatestRevision, st.LatestStatus = latest.Revision, latest.Status
	}
	if note != "" {
		st.Remarks = append(st.Remarks, note)
	}
	if err := st.readObjects(ctx, lc, rel); err != nil {
		return nil, err
	}
	if opts.Pods {
		if err := st.readPods(ctx, c.Clientset()); err != nil {
			return nil, err
		}
	}
	if opts.ObjectsOnly {
		return st, nil
	}
	st.Hooks = []HookStatus{}
	if err := readHooks(ctx, c, st, rel, opts); err != nil {
		return nil, err
	}
	if err := readEvents(ctx, c, st); err != nil {
		return nil, err
	}
	return st, nil
}

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

// readObjects reads every object of rel's manifest (with drift's reading) and
// judges each with kstatus.
func (s *ReleaseStatus) readObjects(ctx context.Context, lc *kube.LiveClients, rel *release.Release) error {
	resources := revdiff.ReleaseResources(rel.Manifest, rel.Namespace)
	objs, targets, err := readObjects(ctx, lc, resources, rel.Namespace, "health unknown")
	if err != nil {
		return err
	}
	s.Resources = make([]ResourceStatus, len(objs))
	s.objs = make([]statusObject, len(objs))
	for i, o := range objs {
		r := ResourceStatus{Kind: o.Resource.Kind, Namespace: o.Resource.Namespace, Name: o.Resource.Name}
		if t := targets[i]; t != nil {
			r.Namespace = t.ns
		}
		switch {
		case o.Unreadable != "":
			r.Status, r.Message = StatusUnknown, o.Unreadable
		case o.Live == nil:
			r.Status, r.Message = StatusNotFound, notFoundMessage
		default:
			r.Status, r.Message = judge(o.Live)
		}
		s.Resources[i] = r
		s.objs[i] = statusObject{target: targets[i], labelled: helmLabelled(o.Live)}
		if t := targets[i]; t != nil && o.Live != nil && workloadResources[t.mapping.Resource.GroupResource()] {
			s.objs[i].selector, s.objs[i].noSelector = workloadSelector(r.Kind, o.Live)
		}
	}
	return nil
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

// helmLabelled reports whether a live object carries the label Helm puts on
// every object it creates.
func helmLabelled(obj map[string]any) bool {
	if obj == nil {
		return false
	}
	md, _ := obj["metadata"].(map[string]any)
	ls, _ := md["labels"].(map[string]any)
	return ls[managedByLabel] == helmManagedByValue
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

// storeOf returns the store of row, the chunked store when the row does not say.
func storeOf(row kube.RevisionRow) string {
	if row.Driver == "" {
		return kube.DriverChunked
	}
	return row.Driver
}

// Scrub masks the secrets the release holds in text, as the read masked its
// messages (nothing once revealed); a status not read by StatusOf has nothing
// to mask with.
func (s *ReleaseStatus) Scrub(text string) string {
	if s.scrub == nil {
		return text
	}
	return s.scrub(text)
}
