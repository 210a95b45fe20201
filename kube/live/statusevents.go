package live

import (
	"context"
	"slices"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/internal/paging"
)

// warningSelector selects Warning events, which every API server's events
// field selectors support.
const warningSelector = "type=" + corev1.EventTypeWarning

// wantPods makes the events of a hook Job's Pods concern the release.
func (s *ReleaseStatus) wantPods(ns string, job *batchv1.Job) {
	if s.wanted == nil {
		s.wanted = newEventMatcher()
	}
	s.wanted.add("Job", ns, job.Name)
}

// readEvents lists the Warning events of each namespace the objects and hooks
// live in (one list each, paged) and keeps those that concern the release.
// Events of cluster-scoped objects, which Kubernetes records in namespace
// default, are not looked for.
func readEvents(ctx context.Context, c Source, st *ReleaseStatus) error {
	if st.wanted == nil {
		st.wanted = newEventMatcher()
	}
	var namespaces []string
	for _, r := range st.Resources {
		if r.Namespace != "" {
			st.wanted.add(r.Kind, r.Namespace, r.Name)
			namespaces = append(namespaces, r.Namespace)
		}
	}
	for _, h := range st.Hooks {
		st.wanted.add(h.Kind, h.Namespace, h.Name)
		namespaces = append(namespaces, h.Namespace)
	}
	slices.Sort(namespaces)
	namespaces = slices.Compact(namespaces)
	st.eventsRV = map[string]string{}
	var all []WarningEvent
	for _, ns := range namespaces {
		var rv string
		items, err := paging.All(ctx, func(ctx context.Context, cont string) ([]corev1.Event, string, error) {
			l, err := c.Clientset().CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: warningSelector, Limit: 500, Continue: cont})
			if err != nil {
				return nil, "", err
			}
			rv = l.ResourceVersion
			return l.Items, l.Continue, nil
		})
		if apierrors.IsForbidden(err) {
			st.Remarks = append(st.Remarks, cannotThen("list", corev1.SchemeGroupVersion.WithResource("events").GroupResource(), ns, "its Warning events are not shown"))
			continue
		}
		if err != nil {
			return kube.Explain(err, "list", "events", ns)
		}
		st.eventsRV[ns] = rv
		for i := range items {
			if ev, ok := st.warning(&items[i]); ok {
				all = append(all, ev)
			}
		}
	}
	st.setEvents(all)
	return nil
}

// warning returns e as the release's warning, if it concerns the release.
func (s *ReleaseStatus) warning(e *corev1.Event) (WarningEvent, bool) {
	io := e.InvolvedObject
	ns := io.Namespace
	if ns == "" {
		ns = e.Namespace
	}
	if s.wanted == nil || s.scrub == nil {
		return WarningEvent{}, false // not read by StatusOf: nothing to match with
	}
	forKey, ok := s.wanted.match(io.Kind, ns, io.Name)
	if !ok || e.Type != corev1.EventTypeWarning {
		return WarningEvent{}, false
	}
	w := WarningEvent{Namespace: ns, Object: io.Kind + "/" + io.Name, For: forKey, Reason: e.Reason,
		Message: s.scrub(e.Message), Count: max(e.Count, 1), LastSeen: lastSeen(e), uid: string(e.UID)}
	if e.Series != nil && e.Series.Count > w.Count {
		w.Count = e.Series.Count
	}
	return w, true
}

// lastSeen is when an event last happened, whichever way its writer said it.
func lastSeen(e *corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// setEvents keeps the newest MaxStatusEvents of evs, newest first.
func (s *ReleaseStatus) setEvents(evs []WarningEvent) {
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].LastSeen.After(evs[j].LastSeen) })
	s.EventsOmitted = max(len(evs)-MaxStatusEvents, 0)
	// Never nil: -o json says [] when there are none.
	s.Events = append([]WarningEvent{}, evs[:min(len(evs), MaxStatusEvents)]...)
}

// upsertEvent adds or replaces one event (a watch's), and reports whether the
// release's warnings changed.
func (s *ReleaseStatus) upsertEvent(e *corev1.Event) bool {
	w, ok := s.warning(e)
	if !ok {
		return false
	}
	evs := slices.Clone(s.Events)
	for i := range evs {
		if evs[i].uid == w.uid {
			if evs[i] == w {
				return false
			}
			evs[i] = w
			s.setEvents(evs)
			return true
		}
	}
	s.setEvents(append(evs, w))
	return true
}

// EventsAbout returns the events of evs about workload kind/name itself or
// about what it runs (its Pods, its ReplicaSets), in their order.
func EventsAbout(evs []WarningEvent, kind, name string) []WarningEvent {
	key := kind + "/" + name
	out := []WarningEvent{}
	for _, e := range evs {
		if e.Object == key || e.For == key {
			out = append(out, e)
		}
	}
	return out
}
