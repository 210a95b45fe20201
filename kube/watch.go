package kube

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/internal/paging"
	"github.com/chunkview/chunkview/kube/internal/watching"
	"github.com/chunkview/chunkview/storage"
)

// DefaultPollInterval is how often a store whose watch is refused is listed.
const DefaultPollInterval = 5 * time.Second

// WatchOptions narrow what Watch follows.
type WatchOptions struct {
	// Name, when set, follows one release (a history) looked up in Namespace;
	// else every release in view, as Releases lists them.
	Name      string
	Namespace string
	// PollInterval is how often a store is listed when watching it is refused:
	// DefaultPollInterval when zero.
	PollInterval time.Duration
	// StaleAfter is how long a watch may hear nothing, not even a bookmark,
	// before it is reopened: DefaultWatchStaleAfter when zero.
	StaleAfter time.Duration
	// Now is the clock of WatchHealth's LastContact: time.Now when nil. A view
	// that measures ages against a clock of its own passes it.
	Now func() time.Time
}

// watchTarget is what one store's watch covers: a resource, a namespace and the
// selectors its listing uses, and how its metadata becomes a row.
type watchTarget struct {
	store  string
	gvr    schema.GroupVersionResource
	ns     string
	labels string
	fields string
	// fallbackNS is listed instead when listing ns is forbidden ("" for none),
	// as the chunked listing falls back to the namespace looked at.
	fallbackNS string
	rowOf      func(*metav1.PartialObjectMetadata) RevisionRow
}

// watchTargets returns the targets of stores, the stores configuration cfg
// reads.
func watchTargets(cfg Config, stores []store, o WatchOptions) []watchTarget {
	var out []watchTarget
	var named labels.Set
	if o.Name != "" {
		named = labels.Set{storage.LabelName: o.Name}
	}
	for _, s := range stores {
		switch s := s.(type) {
		case chunkedStore:
			sel := labels.Set{storage.LabelOwner: cfg.Owner, storage.LabelType: storage.TypeIndex}
			maps.Copy(sel, named)
			t := watchTarget{store: DriverChunked, gvr: secretsGVR, labels: labels.SelectorFromSet(sel).String(), ns: cfg.listNamespace()}
			switch {
			case o.Name != "":
				t.ns = cfg.storageNamespaceFor(o.Namespace)
			case cfg.StorageNamespace == "" && !cfg.AllNamespaces && cfg.Namespace != "":
				t.ns, t.fallbackNS = metav1.NamespaceAll, cfg.Namespace
			}
			limit := s.limit()
			t.rowOf = func(m *metav1.PartialObjectMetadata) RevisionRow {
				r := rowOf(m)
				r.LimitBytes = limit
				return r
			}
			out = append(out, t)
		case *helmStore:
			t := watchTarget{store: s.kind, gvr: s.gvr(), labels: helmSelector(named), fields: s.fieldSelector(), ns: s.listNamespace()}
			if o.Name != "" {
				t.ns = cfg.storeNamespaceFor(s.kind, o.Namespace)
			}
			t.rowOf = func(m *metav1.PartialObjectMetadata) RevisionRow { return s.rowOf(m) }
			out = append(out, t)
		}
	}
	return out
}

// Watch follows the release records in view, whatever their store, and reports
// each revision added, changed or deleted on the channel it returns, which is
// closed once ctx is done. It costs one metadata list per store, then one
// metadata-only watch per store from that list's resourceVersion, with bookmarks:
// no record data crosses the wire, and nothing is listed again while it runs,
// except after the server says the watch fell behind (410 Gone), when the store is
// listed once more and WatchSynced says so. A watch that breaks is reopened from
// the last resourceVersion seen, with backoff; one that hears nothing for
// StaleAfter is reopened too. A store whose watch is refused (403, or 405 from a
// server or proxy that does not serve it) is listed every PollInterval instead,
// and a WatchMode event says so. A store that cannot be listed (forbidden, not
// served) is left out, as listings skip it; one whose list fails because the
// server cannot be reached or is overloaded is listed again with backoff, and
// the first WatchSynced waits for it. WatchHealth events say when the stores
// stop being followed and when they are again.
func (c *Client) Watch(ctx context.Context, o WatchOptions) <-chan WatchEvent {
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = DefaultWatchStaleAfter
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	out := make(chan WatchEvent, 64)
	targets := watchTargets(c.cfg, c.stores(), o)
	go func() {
		defer close(out)
		send := func(ev WatchEvent) bool {
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		narrow := o.Name == "" && !c.cfg.AllNamespaces && c.cfg.Namespace != ""
		health := newWatchHealth(len(targets), o.Now, send)
		// Each store is listed on its own, so that a server that does not
		// answer costs one request timeout, not one per store; the watches
		// start once every store is listed or left out.
		start := make(chan struct{})
		listed := make(chan string, len(targets))
		var wg sync.WaitGroup
		defer wg.Wait()
		for i, t := range targets {
			w := &storeWatch{c: c, id: i, t: t, poll: o.PollInterval, stale: o.StaleAfter, narrow: narrow, send: send, health: health}
			wg.Add(1)
			go func() {
				defer wg.Done()
				skip, ok := w.firstList(ctx)
				listed <- skip
				if !ok {
					return
				}
				select {
				case <-start:
					w.run(ctx)
				case <-ctx.Done():
				}
			}()
		}
		var skipped []string
		for range targets {
			select {
			case skip := <-listed:
				if skip != "" {
					skipped = append(skipped, skip)
				}
			case <-ctx.Done():
				return
			}
		}
		// Listings skip it too, and say so; so does the watch, once.
		if len(skipped) > 0 && !send(WatchEvent{Type: WatchMode, Note: strings.Join(skipped, "; ")}) {
			return
		}
		if !send(WatchEvent{Type: WatchSynced, Initial: true}) {
			return
		}
		close(start)
	}()
	return out
}

// storeWatch follows one store, the id-th of its Watch.
type storeWatch struct {
	c      *Client
	id     int
	t      watchTarget
	poll   time.Duration
	stale  time.Duration
	narrow bool
	send   func(WatchEvent) bool
	health *watchHealth

	// rv is the resourceVersion the watch resumes from; known maps each record
	// (namespace/name) to the resourceVersion last reported, so that polling can
	// tell what changed.
	rv    string
	known map[string]string
}

// firstList lists the store until the list succeeds, the server refuses it for
// good, or ctx is done. It returns why the store is not followed ("" when it
// is, or ctx ended) and whether to follow it.
func (w *storeWatch) firstList(ctx context.Context) (string, bool) {
	backoff := watching.BackoffMin
	for {
		err := w.list(ctx)
		switch {
		case err == nil:
			return "", w.health.heard(w.id)
		case ctx.Err() != nil:
			return "", false
		case !transient(err):
			w.health.drop(w.id)
			return fmt.Sprintf("the %s store is not followed: %s", w.t.store, human.FirstLine(err.Error(), 160)), false
		}
		if !w.health.failed(w.id, Explain(err, "list", w.t.gvr.Resource, w.t.ns)) || !watching.Sleep(ctx, backoff) {
			return "", false
		}
		backoff = min(backoff*2, watching.BackoffMax)
	}
}

// list lists the store's metadata, keeps what it holds and its resourceVersion.
func (w *storeWatch) list(ctx context.Context) error {
	items, rv, err := w.listMeta(ctx, w.t.ns)
	if err != nil && w.t.fallbackNS != "" && apierrors.IsForbidden(err) {
		w.t.ns, w.t.fallbackNS = w.t.fallbackNS, ""
		items, rv, err = w.listMeta(ctx, w.t.ns)
	}
	if err != nil {
		return err
	}
	w.rv = rv
	w.known = make(map[string]string, len(items))
	for _, m := range items {
		w.known[m.Namespace+"/"+m.Name] = m.ResourceVersion
	}
	return nil
}

func (w *storeWatch) listMeta(ctx context.Context, ns string) ([]metav1.PartialObjectMetadata, string, error) {
	var rv string
	items, err := paging.All(ctx, func(ctx context.Context, cont string) ([]metav1.PartialObjectMetadata, string, error) {
		opts := metav1.ListOptions{LabelSelector: w.t.labels, FieldSelector: w.t.fields, Limit: metadataPage, Continue: cont}
		list, err := w.c.md.Resource(w.t.gvr).Namespace(ns).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		rv = list.ResourceVersion
		return list.Items, list.Continue, nil
	})
	return items, rv, err
}

// run watches the store until ctx is done, or polls it once watch is refused.
func (w *storeWatch) run(ctx context.Context) {
	backoff := watching.BackoffMin
	for ctx.Err() == nil {
		opened, err := w.watchOnce(ctx)
		if opened {
			backoff = watching.BackoffMin // it ran: a break now is a new one
		}
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			backoff = watching.BackoffMin // the server ended a healthy watch: resume
			continue
		case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
			if err = w.resync(ctx); err == nil {
				backoff = watching.BackoffMin
				continue
			}
			if ctx.Err() != nil {
				return
			}
			err = Explain(err, "list", w.t.gvr.Resource, w.t.ns)
		case watching.Refused(err):
			note := fmt.Sprintf("watching %s was refused (%s): listing them every %s instead", w.t.gvr.Resource, watching.ShortReason(err), w.poll)
			if !w.health.heard(w.id) || !w.send(WatchEvent{Type: WatchMode, Polling: true, Note: note}) {
				return
			}
			w.pollLoop(ctx)
			return
		default:
			err = Explain(err, "watch", w.t.gvr.Resource, w.t.ns)
		}
		if !w.health.failed(w.id, err) || !watching.Sleep(ctx, backoff) {
			return
		}
		backoff = min(backoff*2, watching.BackoffMax)
	}
}

// resync lists the store again after its watch fell behind, and says so.
func (w *storeWatch) resync(ctx context.Context) error {
	if err := w.list(ctx); err != nil {
		return err
	}
	if !w.health.heard(w.id) || !w.send(WatchEvent{Type: WatchSynced}) {
		return ctx.Err()
	}
	return nil
}

// watchOnce runs one watch from w.rv until it ends: nil when the server closed
// it, or when it heard nothing for w.stale (a bookmark would have come), else
// why it failed. opened says whether the server let it open.
func (w *storeWatch) watchOnce(ctx context.Context) (opened bool, err error) {
	opts := metav1.ListOptions{LabelSelector: w.t.labels, FieldSelector: w.t.fields, ResourceVersion: w.rv, AllowWatchBookmarks: true}
	wi, err := w.c.md.Resource(w.t.gvr).Namespace(w.t.ns).Watch(ctx, opts)
	if err != nil {
		return false, err
	}
	defer wi.Stop()
	return true, w.follow(ctx, wi)
}

// follow reports what an open watch sends until it ends (see watchOnce).
func (w *storeWatch) follow(ctx context.Context, wi watch.Interface) error {
	if !w.health.heard(w.id) {
		return ctx.Err()
	}
	quiet := time.NewTimer(w.stale)
	defer quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-quiet.C:
			return nil
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return nil
			}
			if ev.Type == watch.Error {
				return apierrors.FromObject(ev.Object)
			}
			quiet.Reset(w.stale)
			if !w.health.heard(w.id) {
				return ctx.Err()
			}
			m, ok := ev.Object.(*metav1.PartialObjectMetadata)
			if !ok {
				continue
			}
			w.rv = m.ResourceVersion
			if ev.Type == watch.Bookmark {
				continue
			}
			if !w.report(ev.Type == watch.Deleted, m) {
				return ctx.Err()
			}
		}
	}
}

// report sends the event of one record and remembers it.
func (w *storeWatch) report(deleted bool, m *metav1.PartialObjectMetadata) bool {
	k := m.Namespace + "/" + m.Name
	row := w.t.rowOf(m)
	if deleted {
		delete(w.known, k)
		return w.send(WatchEvent{Type: WatchDeleted, Row: row})
	}
	_, existed := w.known[k]
	w.known[k] = m.ResourceVersion
	w.c.reader.applyCached(&row)
	if w.narrow && !w.c.cfg.inView(row) {
		return true
	}
	return w.send(WatchEvent{Type: WatchChanged, Row: row, New: !existed})
}

// pollLoop lists the store every w.poll and reports what changed since the last
// list.
func (w *storeWatch) pollLoop(ctx context.Context) {
	for watching.Sleep(ctx, w.poll) {
		items, _, err := w.listMeta(ctx, w.t.ns)
		if err != nil {
			if ctx.Err() != nil || !w.health.failed(w.id, Explain(err, "list", w.t.gvr.Resource, w.t.ns)) {
				return
			}
			continue // the next round tries again
		}
		if !w.health.heard(w.id) {
			return
		}
		seen := make(map[string]bool, len(items))
		for i := range items {
			m := &items[i]
			k := m.Namespace + "/" + m.Name
			seen[k] = true
			if w.known[k] == m.ResourceVersion {
				continue
			}
			if !w.report(false, m) {
				return
			}
		}
		for k := range w.known {
			if seen[k] {
				continue
			}
			ns, name, _ := strings.Cut(k, "/")
			m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
			if !w.report(true, m) {
				return
			}
		}
	}
}
