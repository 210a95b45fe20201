package live

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/internal/watching"
)

// StatusUpdate is one change WatchStatus reports.
type StatusUpdate struct {
	// Status is the whole status after the change, a copy the receiver owns.
	Status *ReleaseStatus
	// Changed are the keys (ResourceStatus.Key) of the objects whose status
	// or message changed; Events is set when the warnings did.
	Changed []string
	Events  bool
	// Polling is set, with Note, when some kind could not be watched (the
	// server refused it) and is read every PollInterval instead.
	Polling bool
	Note    string
}

// StatusWatchOptions say how WatchStatus follows a release.
type StatusWatchOptions struct {
	// PollInterval is how often the objects of a kind whose watch is refused
	// are read again: kube.DefaultPollInterval when zero.
	PollInterval time.Duration
}

// statusGroup is what one watch follows: the objects of one kind in one
// namespace.
type statusGroup struct {
	gvr schema.GroupVersionResource
	ns  string
	// names maps each object's name to its indexes in the status.
	names map[string][]int
	// apiVersion and kind are the objects', for kstatus.
	apiVersion, kind string
	// meta watches metadata only: for the kinds whose kstatus reads nothing
	// else (Secrets, ConfigMaps, always Current while they exist), so their
	// data never crosses the wire.
	meta           bool
	fields, labels string
}

// metaOnlyKinds are the kinds whose kstatus rule reads no field past metadata.
var metaOnlyKinds = map[schema.GroupKind]bool{{Kind: "Secret"}: true, {Kind: "ConfigMap"}: true}

// statusGroups groups the objects of s by kind and namespace, and picks how
// each group's watch selects them: by name when it is one object; by Helm's
// managed-by label when every object read carried it; else every object of the
// kind in the namespace, the names picked out here.
func (s *ReleaseStatus) statusGroups() []*statusGroup {
	byKey := map[string]*statusGroup{}
	var out []*statusGroup
	for i, o := range s.objs {
		t := o.target
		if t == nil {
			continue
		}
		k := t.mapping.Resource.String() + "|" + t.ns
		g := byKey[k]
		if g == nil {
			gvk := t.mapping.GroupVersionKind
			g = &statusGroup{gvr: t.mapping.Resource, ns: t.ns, names: map[string][]int{},
				apiVersion: gvk.GroupVersion().String(), kind: gvk.Kind, meta: metaOnlyKinds[gvk.GroupKind()], labels: "labelled"}
			byKey[k] = g
			out = append(out, g)
		}
		g.names[t.res.Name] = append(g.names[t.res.Name], i)
		if !o.labelled && s.Resources[i].Status != StatusNotFound {
			g.labels = ""
		}
	}
	for _, g := range out {
		switch {
		case len(g.names) == 1:
			for n := range g.names {
				g.fields, g.labels = fields.OneTermEqualSelector("metadata.name", n).String(), ""
			}
		case g.labels != "":
			g.labels = labels.SelectorFromSet(labels.Set{managedByLabel: helmManagedByValue}).String()
		}
	}
	return out
}

// WatchStatus follows the objects of st live and reports each change of their
// status, and each new Warning event, on the channel it returns, which is closed
// once ctx is done. It costs one watch per kind of object and namespace (see
// statusGroups for how each selects), and one watch of Warning events per
// namespace, from the resourceVersion of st's list; nothing is read again while
// they run. Each object watch starts by sending the objects it selects as they
// are now, so that nothing changed since st was read is missed. A watch that
// breaks is reopened from the last resourceVersion it saw, with backoff; one the
// server says fell behind (410 Gone) starts over. A kind the server refuses to
// watch (403, 405) is read every PollInterval instead, one GET per object, and
// an update with Polling says so. st is not changed.
func WatchStatus(ctx context.Context, c Source, st *ReleaseStatus, o StatusWatchOptions) <-chan StatusUpdate {
	if o.PollInterval <= 0 {
		o.PollInterval = kube.DefaultPollInterval
	}
	out := make(chan StatusUpdate, 16)
	lc, err := c.Live()
	if err != nil {
		close(out)
		return out
	}
	cur := st.Copy()
	changes := make(chan statusChange, 64)
	groups := cur.statusGroups()
	w := &statusWatch{c: c, lc: lc, changes: changes, poll: o.PollInterval}
	for _, g := range groups {
		go w.follow(ctx, g)
	}
	for ns, rv := range st.eventsRV {
		go w.followEvents(ctx, ns, rv)
	}
	go func() {
		defer close(out)
		polling := map[string]string{}
		for {
			select {
			case <-ctx.Done():
				return
			case ch := <-changes:
				upd := StatusUpdate{}
				switch {
				case ch.poll != "":
					polling[ch.group] = ch.poll
					upd.Polling = true
				case ch.event != nil:
					upd.Events = cur.upsertEvent(ch.event)
				default:
					for _, i := range ch.idx {
						if cur.Resources[i].Status != ch.status || cur.Resources[i].Message != ch.message {
							cur.Resources[i].Status, cur.Resources[i].Message = ch.status, ch.message
							upd.Changed = append(upd.Changed, cur.Resources[i].Key())
						}
					}
				}
				if len(upd.Changed) == 0 && !upd.Events && !upd.Polling {
					continue
				}
				if len(polling) > 0 {
					upd.Polling = true
					notes := slices.Sorted(maps.Values(polling))
					upd.Note = strings.Join(notes, "; ")
				}
				upd.Status = cur.Copy()
				select {
				case out <- upd:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}

// statusChange is what a watch saw: an object's new status, a Warning event,
// or that a group is polled.
type statusChange struct {
	idx             []int
	status, message string
	event           *corev1.Event
	group, poll     string
}

// statusWatch runs the watches of one WatchStatus.
type statusWatch struct {
	c       Source
	lc      *kube.LiveClients
	changes chan<- statusChange
	poll    time.Duration
}

func (w *statusWatch) post(ctx context.Context, ch statusChange) bool {
	select {
	case w.changes <- ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// follow watches one group until ctx is done, or polls it once its watch is
// refused.
func (w *statusWatch) follow(ctx context.Context, g *statusGroup) {
	rv := ""
	backoff := watching.BackoffMin
	for ctx.Err() == nil {
		err := w.watchGroup(ctx, g, &rv)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			backoff = watching.BackoffMin
			continue
		case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
			rv = "" // start over: the watch sends every object again
			continue
		case watching.Refused(err):
			where := g.gvr.Resource
			if g.ns != "" {
				where += " in " + g.ns
			}
			note := fmt.Sprintf("watching %s was refused (%s): reading them every %s instead", where, watching.ShortReason(err), w.poll)
			if !w.post(ctx, statusChange{group: g.gvr.String() + "|" + g.ns, poll: note}) {
				return
			}
			w.pollGroup(ctx, g)
			return
		}
		if !watching.Sleep(ctx, backoff) {
			return
		}
		backoff = min(backoff*2, watching.BackoffMax)
	}
}

// watchGroup runs one watch of g from *rv until it ends: nil when the server
// closed it, else why it failed.
func (w *statusWatch) watchGroup(ctx context.Context, g *statusGroup, rv *string) error {
	opts := metav1.ListOptions{FieldSelector: g.fields, LabelSelector: g.labels, ResourceVersion: *rv, AllowWatchBookmarks: true}
	var (
		wi  watch.Interface
		err error
	)
	if g.meta {
		wi, err = w.lc.Metadata.Resource(g.gvr).Namespace(g.ns).Watch(ctx, opts)
	} else {
		wi, err = w.lc.Dynamic.Resource(g.gvr).Namespace(g.ns).Watch(ctx, opts)
	}
	if err != nil {
		return err
	}
	defer wi.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return nil
			}
			if ev.Type == watch.Error {
				return apierrors.FromObject(ev.Object)
			}
			obj, ok := g.object(ev.Object)
			if !ok {
				continue
			}
			*rv = obj.GetResourceVersion()
			if ev.Type == watch.Bookmark {
				continue
			}
			idx := g.names[obj.GetName()]
			if len(idx) == 0 {
				continue
			}
			ch := statusChange{idx: idx, status: StatusNotFound, message: notFoundMessage}
			if ev.Type != watch.Deleted {
				ch.status, ch.message = judge(obj.Object)
			}
			if !w.post(ctx, ch) {
				return ctx.Err()
			}
		}
	}
}

// object returns what a watch or a read of g sent as an object kstatus can
// judge: metadata gets the group's apiVersion and kind.
func (g *statusGroup) object(o runtime.Object) (*unstructured.Unstructured, bool) {
	switch o := o.(type) {
	case *unstructured.Unstructured:
		return o, true
	case *metav1.PartialObjectMetadata:
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return nil, false
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion(g.apiVersion)
		u.SetKind(g.kind)
		return u, true
	}
	return nil, false
}

// pollGroup reads each object of g every w.poll until ctx is done.
func (w *statusWatch) pollGroup(ctx context.Context, g *statusGroup) {
	names := slices.Sorted(maps.Keys(g.names))
	for watching.Sleep(ctx, w.poll) {
		for _, n := range names {
			var (
				o   runtime.Object
				err error
			)
			if g.meta {
				o, err = w.lc.Metadata.Resource(g.gvr).Namespace(g.ns).Get(ctx, n, metav1.GetOptions{})
			} else {
				o, err = w.lc.Dynamic.Resource(g.gvr).Namespace(g.ns).Get(ctx, n, metav1.GetOptions{})
			}
			ch := statusChange{idx: g.names[n]}
			switch {
			case apierrors.IsNotFound(err):
				ch.status, ch.message = StatusNotFound, notFoundMessage
			case err != nil:
				continue // the next round tries again
			default:
				obj, ok := g.object(o)
				if !ok {
					continue
				}
				ch.status, ch.message = judge(obj.Object)
			}
			if !w.post(ctx, ch) {
				return
			}
		}
	}
}

// followEvents watches the Warning events of namespace ns from resourceVersion
// rv, or lists them every w.poll once the watch is refused.
func (w *statusWatch) followEvents(ctx context.Context, ns, rv string) {
	backoff := watching.BackoffMin
	for ctx.Err() == nil {
		err := w.watchEvents(ctx, ns, &rv)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			backoff = watching.BackoffMin
			continue
		case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
			rv = "" // the watch sends every Warning event again
			continue
		case watching.Refused(err):
			note := fmt.Sprintf("watching events in %s was refused (%s): listing its Warning events every %s instead", ns, watching.ShortReason(err), w.poll)
			if !w.post(ctx, statusChange{group: "events|" + ns, poll: note}) {
				return
			}
			w.pollEvents(ctx, ns)
			return
		}
		if !watching.Sleep(ctx, backoff) {
			return
		}
		backoff = min(backoff*2, watching.BackoffMax)
	}
}

func (w *statusWatch) watchEvents(ctx context.Context, ns string, rv *string) error {
	wi, err := w.c.Clientset().CoreV1().Events(ns).Watch(ctx, metav1.ListOptions{FieldSelector: warningSelector, ResourceVersion: *rv, AllowWatchBookmarks: true})
	if err != nil {
		return err
	}
	defer wi.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return nil
			}
			if ev.Type == watch.Error {
				return apierrors.FromObject(ev.Object)
			}
			e, ok := ev.Object.(*corev1.Event)
			if !ok {
				continue
			}
			*rv = e.ResourceVersion
			if ev.Type == watch.Added || ev.Type == watch.Modified {
				if !w.post(ctx, statusChange{event: e}) {
					return ctx.Err()
				}
			}
		}
	}
}

// pollEvents lists the Warning events of ns every w.poll.
func (w *statusWatch) pollEvents(ctx context.Context, ns string) {
	for watching.Sleep(ctx, w.poll) {
		l, err := w.c.Clientset().CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: warningSelector})
		if err != nil {
			continue
		}
		for i := range l.Items {
			if !w.post(ctx, statusChange{event: &l.Items[i]}) {
				return
			}
		}
	}
}
