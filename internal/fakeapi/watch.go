package fakeapi

import (
	"sync"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// watcher is one watch on the store. Events queue without bound and a goroutine
// hands them to the reader, so a slow reader never blocks a write and never loses
// an event (client-go's fake watcher panics after 100 unread events).
type watcher struct {
	store   *store
	gvr     schema.GroupVersionResource
	ns      string
	labels  labels.Selector
	fields  fields.Selector
	convert func(object) runtime.Object

	result chan watch.Event
	wake   chan struct{}
	done   chan struct{}
	stop   sync.Once

	mu    sync.Mutex
	queue []watch.Event
}

var _ watch.Interface = (*watcher)(nil)

func newWatcher(s *store, gvr schema.GroupVersionResource, ns string, ls labels.Selector, fs fields.Selector, convert func(object) runtime.Object) *watcher {
	if convert == nil {
		convert = func(o object) runtime.Object { return o.DeepCopyObject() }
	}
	return &watcher{
		store: s, gvr: gvr, ns: ns, labels: ls, fields: fs, convert: convert,
		result: make(chan watch.Event),
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
}

// offer turns a store event into what this watch sees: nothing when it concerns
// another resource or namespace, and ADDED or DELETED when the object starts or
// stops matching the selectors, as the API server's watch cache does.
func (w *watcher) offer(ev event) {
	if ev.gvr != w.gvr || (w.ns != "" && ev.ns != w.ns) {
		return
	}
	match := func(obj object) bool { return obj != nil && matches(obj, w.labels, w.fields) }
	switch ev.typ {
	case watch.Added:
		if match(ev.obj) {
			w.push(watch.Added, ev.obj)
		}
	case watch.Modified:
		now, before := match(ev.obj), match(ev.old)
		switch {
		case now && before:
			w.push(watch.Modified, ev.obj)
		case now:
			w.push(watch.Added, ev.obj)
		case before:
			w.push(watch.Deleted, ev.obj)
		}
	case watch.Deleted:
		if match(ev.old) {
			w.push(watch.Deleted, ev.obj)
		}
	}
}

func (w *watcher) push(typ watch.EventType, obj object) {
	w.mu.Lock()
	w.queue = append(w.queue, watch.Event{Type: typ, Object: w.convert(obj)})
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher) run() {
	defer close(w.result)
	for {
		w.mu.Lock()
		q := w.queue
		w.queue = nil
		w.mu.Unlock()
		for _, ev := range q {
			select {
			case w.result <- ev:
			case <-w.done:
				return
			}
		}
		if len(q) > 0 {
			continue
		}
		select {
		case <-w.wake:
		case <-w.done:
			return
		}
	}
}

// ResultChan returns the events; it is closed after Stop.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// Stop ends the watch; it may be called more than once.
func (w *watcher) Stop() {
	w.stop.Do(func() {
		w.store.stopWatching(w)
		close(w.done)
	})
}
