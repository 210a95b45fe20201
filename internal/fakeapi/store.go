package fakeapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

var (
	secretsGVR    = corev1.SchemeGroupVersion.WithResource("secrets")
	configMapsGVR = corev1.SchemeGroupVersion.WithResource("configmaps")
	namespacesGVR = corev1.SchemeGroupVersion.WithResource("namespaces")
	eventsGVR     = corev1.SchemeGroupVersion.WithResource("events")
)

// optimisticLockMsg is kube-apiserver's wording for an update with a stale
// resourceVersion (registry.OptimisticLockErrorMsg).
const optimisticLockMsg = "the object has been modified; please apply your changes to the latest version and try again"

// historyLen bounds the events kept for watches that start from a resourceVersion,
// like the watch cache's window; an older start gets 410 Gone, as from a real server.
const historyLen = 512

// event is one change, kept for watches. For a deletion obj is the last state with
// the deletion's resourceVersion and old is the last stored state.
type event struct {
	rv   uint64
	gvr  schema.GroupVersionResource
	typ  watch.EventType
	obj  object
	old  object
	ns   string
	name string
}

// store holds every object of the in-memory cluster with the API server's
// semantics: system metadata, one cluster-wide resourceVersion counter, optimistic
// concurrency, validation, preconditions, selectors, pagination and watches. Stored
// objects are never mutated; every write stores a fresh copy and every read returns
// one.
type store struct {
	mu       sync.Mutex
	now      func() time.Time
	rv       uint64
	objects  map[schema.GroupVersionResource]map[string]object
	watchers map[*watcher]struct{}
	history  []event
	// historyFrom is the oldest resourceVersion a watch may start from: every event
	// after it is still in history.
	historyFrom uint64
}

func newStore() *store {
	return &store{
		now:         time.Now,
		rv:          1,
		historyFrom: 1,
		objects:     make(map[schema.GroupVersionResource]map[string]object),
		watchers:    make(map[*watcher]struct{}),
	}
}

// storageKey orders objects the way etcd keys do: by namespace, then name.
func storageKey(ns, name string) string { return ns + "/" + name }

// etcdKey is the key the API server would name in its storage errors.
func etcdKey(gvr schema.GroupVersionResource, ns, name string) string {
	if ns == "" {
		return "/registry/" + gvr.Resource + "/" + name
	}
	return "/registry/" + gvr.Resource + "/" + ns + "/" + name
}

// put stores o, which the store now owns, under a new resourceVersion and tells
// the watchers. The caller holds s.mu.
func (s *store) put(gvr schema.GroupVersionResource, o, old object) object {
	s.rv++
	o.SetResourceVersion(strconv.FormatUint(s.rv, 10))
	objs := s.objects[gvr]
	if objs == nil {
		objs = make(map[string]object)
		s.objects[gvr] = objs
	}
	objs[storageKey(o.GetNamespace(), o.GetName())] = o
	typ := watch.Modified
	if old == nil {
		typ = watch.Added
	}
	s.emit(event{rv: s.rv, gvr: gvr, typ: typ, obj: o, old: old, ns: o.GetNamespace(), name: o.GetName()})
	return copyOf(o)
}

// remove deletes a stored object under a new resourceVersion. Deleting a Namespace
// deletes what it holds, as the namespace controller does (at once here). The
// caller holds s.mu.
func (s *store) remove(gvr schema.GroupVersionResource, old object) {
	s.rv++
	gone := copyOf(old)
	gone.SetResourceVersion(strconv.FormatUint(s.rv, 10))
	delete(s.objects[gvr], storageKey(old.GetNamespace(), old.GetName()))
	s.emit(event{rv: s.rv, gvr: gvr, typ: watch.Deleted, obj: gone, old: old, ns: old.GetNamespace(), name: old.GetName()})
	if gvr != namespacesGVR {
		return
	}
	gvrs := slices.SortedFunc(maps.Keys(s.objects), func(a, b schema.GroupVersionResource) int {
		return strings.Compare(a.String(), b.String())
	})
	for _, r := range gvrs {
		for _, k := range slices.Sorted(maps.Keys(s.objects[r])) {
			if strings.HasPrefix(k, old.GetName()+"/") {
				s.remove(r, s.objects[r][k])
			}
		}
	}
}

// compact forgets the events kept for watches, as etcd's compaction does: a watch
// may still start from the current resourceVersion or from none, one from an
// earlier resourceVersion gets 410 Gone. Seed compacts when done, so that the
// history of its writes (every superseded copy of every record) is not held.
func (s *store) compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history, s.historyFrom = nil, s.rv
}

func (s *store) emit(ev event) {
	s.history = append(s.history, ev)
	if len(s.history) > historyLen {
		drop := len(s.history) - historyLen
		s.historyFrom = s.history[drop-1].rv
		s.history = slices.Clone(s.history[drop:])
	}
	for w := range s.watchers {
		w.offer(ev)
	}
}

func (s *store) get(gvr schema.GroupVersionResource, ns, name string) (object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.objects[gvr][storageKey(ns, name)]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	return copyOf(o), nil
}

func (s *store) create(gvr schema.GroupVersionResource, ns string, in runtime.Object, dryRun bool) (object, error) {
	o, err := asObject(in)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.createLocked(gvr, ns, o, dryRun)
}

// createLocked follows kube-apiserver's create: generate the name, settle the
// namespace, fill uid and creationTimestamp, default, validate, admit (the namespace
// must exist), then store, refusing a resourceVersion and an existing name.
func (s *store) createLocked(gvr schema.GroupVersionResource, ns string, o object, dryRun bool) (object, error) {
	if o.GetName() == "" && o.GetGenerateName() != "" {
		base := o.GetGenerateName()
		if len(base) > 58 {
			base = base[:58]
		}
		o.SetName(base + rand.String(5))
	}
	if err := settleNamespace(o, ns); err != nil {
		return nil, err
	}
	o.SetUID(uuid.NewUUID())
	o.SetCreationTimestamp(metav1.NewTime(s.now()).Rfc3339Copy())
	o.SetDeletionTimestamp(nil)
	prepare(o)
	if errs := validateCreate(o, ns != ""); len(errs) > 0 {
		return nil, apierrors.NewInvalid(qualifiedKind(o, gvr), o.GetName(), errs)
	}
	if ns != "" {
		if _, ok := s.objects[namespacesGVR][storageKey("", ns)]; !ok {
			return nil, apierrors.NewNotFound(namespacesGVR.GroupResource(), ns)
		}
	}
	if o.GetResourceVersion() != "" {
		// The API server answers a plain storage error: code 500 without a reason.
		return nil, &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Message: "resourceVersion should not be set on objects to be created",
		}}
	}
	if _, ok := s.objects[gvr][storageKey(o.GetNamespace(), o.GetName())]; ok {
		return nil, apierrors.NewAlreadyExists(gvr.GroupResource(), o.GetName())
	}
	if dryRun {
		return o, nil
	}
	return s.put(gvr, o, nil), nil
}

func (s *store) update(gvr schema.GroupVersionResource, ns string, in runtime.Object, dryRun bool) (object, error) {
	o, err := asObject(in)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updateLocked(gvr, ns, o, dryRun)
}

// preconditionFailed is the Conflict an update whose uid does not match turns into,
// worded as kube-apiserver's storage layer words it.
func preconditionFailed(gvr schema.GroupVersionResource, ns, name, what, want, got string) error {
	return apierrors.NewConflict(gvr.GroupResource(), name, fmt.Errorf(
		"StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: %s in precondition: %s, %s in object meta: %s",
		etcdKey(gvr, ns, name), what, want, what, got))
}

// updateLocked follows kube-apiserver's update for resources that allow
// unconditional updates (Secrets do): an empty resourceVersion means "no
// precondition", any other must match; a uid must match; uid and creationTimestamp
// are kept; an update that changes nothing writes nothing.
func (s *store) updateLocked(gvr schema.GroupVersionResource, ns string, o object, dryRun bool) (object, error) {
	if err := settleNamespace(o, ns); err != nil {
		return nil, err
	}
	name := o.GetName()
	old, ok := s.objects[gvr][storageKey(ns, name)]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	if uid := o.GetUID(); uid != "" && uid != old.GetUID() {
		return nil, preconditionFailed(gvr, ns, name, "UID", string(uid), string(old.GetUID()))
	}
	switch o.GetResourceVersion() {
	case "":
		o.SetResourceVersion(old.GetResourceVersion())
	case old.GetResourceVersion():
	default:
		return nil, apierrors.NewConflict(gvr.GroupResource(), name, errors.New(optimisticLockMsg))
	}
	o.SetUID(old.GetUID())
	o.SetCreationTimestamp(old.GetCreationTimestamp())
	o.SetDeletionTimestamp(old.GetDeletionTimestamp())
	prepare(o)
	if errs := validateUpdate(o, old); len(errs) > 0 {
		return nil, apierrors.NewInvalid(qualifiedKind(o, gvr), name, errs)
	}
	if sameObject(o, old) {
		return copyOf(old), nil
	}
	if dryRun {
		return o, nil
	}
	return s.put(gvr, o, old), nil
}

// patch applies a JSON, merge or strategic merge patch, or a server-side apply
// (approximated by a strategic merge, without field ownership), to the stored object
// and stores the result through the update path, so every update rule applies. A
// resourceVersion inside the patch is a precondition, as on a real server.
func (s *store) patch(gvr schema.GroupVersionResource, ns, name string, pt types.PatchType, data []byte, dryRun bool) (object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.objects[gvr][storageKey(ns, name)]
	if pt == types.ApplyPatchType {
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
		}
		data = j
		if !ok {
			var tm metav1.TypeMeta
			if err := json.Unmarshal(data, &tm); err != nil {
				return nil, apierrors.NewBadRequest(err.Error())
			}
			obj, err := scheme.Scheme.New(tm.GroupVersionKind())
			if err != nil {
				return nil, apierrors.NewBadRequest(err.Error())
			}
			if err := json.Unmarshal(data, obj); err != nil {
				return nil, apierrors.NewBadRequest(err.Error())
			}
			o, err := asObject(obj)
			if err != nil {
				return nil, err
			}
			return s.createLocked(gvr, ns, o, dryRun)
		}
		pt = types.StrategicMergePatchType
	}
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	cur, err := json.Marshal(old)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	var patched []byte
	switch pt {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(data)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if patched, err = p.Apply(cur); err != nil {
			return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
	case types.MergePatchType:
		if patched, err = jsonpatch.MergePatch(cur, data); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	case types.StrategicMergePatchType:
		if patched, err = strategicpatch.StrategicMergePatch(cur, data, old); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	default:
		return nil, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "patch", gvr.GroupResource(), name, fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json; got %q", pt), 0, false)
	}
	o := reflect.New(reflect.TypeOf(old).Elem()).Interface().(object)
	if err := json.Unmarshal(patched, o); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("patched object: %v", err))
	}
	if o.GetName() != name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", o.GetName(), name))
	}
	return s.updateLocked(gvr, ns, o, dryRun)
}

// checkPreconditions checks a delete's preconditions, worded as kube-apiserver's
// delete words them (it names the kind, not the resource).
func checkPreconditions(gvr schema.GroupVersionResource, p *metav1.Preconditions, o object) error {
	if p == nil {
		return nil
	}
	gk := qualifiedKind(o, gvr)
	gr := schema.GroupResource{Group: gk.Group, Resource: gk.Kind}
	if p.UID != nil && *p.UID != o.GetUID() {
		return apierrors.NewConflict(gr, o.GetName(), fmt.Errorf(
			"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, o.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != o.GetResourceVersion() {
		return apierrors.NewConflict(gr, o.GetName(), fmt.Errorf(
			"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, o.GetResourceVersion()))
	}
	return nil
}

// delete removes an object, honouring DeleteOptions.Preconditions. There is no
// garbage collector: dependents named by ownerReferences stay.
func (s *store) delete(gvr schema.GroupVersionResource, ns, name string, opts metav1.DeleteOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.objects[gvr][storageKey(ns, name)]
	if !ok {
		return apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	if err := checkPreconditions(gvr, opts.Preconditions, old); err != nil {
		return err
	}
	if !isDryRun(opts.DryRun) {
		s.remove(gvr, old)
	}
	return nil
}

// deleteCollection deletes what a list with the same selectors would return (all
// pages), each object with its own resourceVersion and watch event. A failed
// precondition stops it there, as the first error stops the API server's.
func (s *store) deleteCollection(gvr schema.GroupVersionResource, ns string, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	ls, fs, err := selectors(gvr, listOpts)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, _ := s.selectLocked(gvr, ns, ls, fs, "", 0)
	for _, o := range all {
		if err := checkPreconditions(gvr, opts.Preconditions, o); err != nil {
			return err
		}
		if !isDryRun(opts.DryRun) {
			s.remove(gvr, o)
		}
	}
	return nil
}

// watch starts a watch the way the API server does: with no resourceVersion (or
// "0") it first sends ADDED for every matching object, with one it replays what
// changed since (410 Gone when that is no longer known), and an object that starts
// or stops matching the selectors arrives as ADDED or DELETED. convert turns each
// object into what the watcher's reader gets; nil means a copy.
func (s *store) watch(gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions, convert func(object) runtime.Object) (*watcher, error) {
	ls, fs, err := selectors(gvr, opts)
	if err != nil {
		return nil, err
	}
	w := newWatcher(s, gvr, ns, ls, fs, convert)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch opts.ResourceVersion {
	case "", "0":
		all, _ := s.selectLocked(gvr, ns, ls, fs, "", 0)
		for _, o := range all {
			w.push(watch.Added, o)
		}
	default:
		from, err := strconv.ParseUint(opts.ResourceVersion, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q", opts.ResourceVersion))
		}
		if from < s.historyFrom {
			return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", from, s.historyFrom))
		}
		for _, ev := range s.history {
			if ev.rv > from {
				w.offer(ev)
			}
		}
	}
	s.watchers[w] = struct{}{}
	go w.run()
	return w, nil
}

func (s *store) stopWatching(w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.watchers, w)
}
