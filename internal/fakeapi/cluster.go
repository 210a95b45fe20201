package fakeapi

import (
	"fmt"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	k8stesting "k8s.io/client-go/testing"
)

// Cluster is an in-memory Kubernetes API that keeps the promises of a real
// kube-apiserver that chunkview relies on, so the chunked driver and Helm's own
// Secrets and ConfigMaps drivers behave on it as they do on a cluster:
//
//   - create fills metadata.uid, creationTimestamp and resourceVersion (one
//     cluster-wide counter), refuses a resourceVersion, an existing name
//     (AlreadyExists) and a namespace that does not exist (NotFound);
//   - update and patch check resourceVersion (Conflict when stale; empty means
//     unconditional, as Secrets and ConfigMaps allow) and uid, keep uid and creationTimestamp,
//     write nothing when nothing changes and bump resourceVersion otherwise;
//   - Secrets are validated as the API server validates them: data over 1,048,576
//     bytes in total, changes to an immutable Secret's data or immutability, a
//     changed type and invalid names or keys are refused with Invalid errors, and
//     stringData is merged into data;
//   - ConfigMaps are validated the same way: data and binaryData over 1,048,576
//     bytes together, changes to an immutable ConfigMap's data, binaryData or
//     immutability, a key in both data and binaryData and invalid names or keys
//     are refused with Invalid errors;
//   - delete honours uid and resourceVersion preconditions (Conflict);
//     deletecollection deletes what the label and field selectors match;
//   - list honours label and field selectors (metadata.name, metadata.namespace,
//     and type for Secrets) and Limit/Continue pagination in key order;
//   - watch sends initial ADDED events or replays from a resourceVersion, filters
//     by selectors and never drops events;
//   - dry-run requests are validated and not stored;
//   - with Authorize, requests the authorizer denies get Forbidden, worded as the
//     API server words it, and SelfSubjectAccessReviews are answered by it.
//
// It has no garbage collector (ownerReferences are stored, never acted on), no
// finalizers, no admission beyond the namespace check and no field ownership for
// server-side apply, and the pages of a paginated list after the first are read
// from the current state rather than from the first page's snapshot. A new Cluster
// holds the namespaces default, kube-system, kube-public and kube-node-lease. It is
// safe for concurrent use.
//
// parity_test.go sends the same requests to a Cluster and to a real kube-apiserver
// (envtest) and wants the same answers, down to the wording of the errors.
type Cluster struct {
	store     *store
	clientset *clientset

	mu       sync.Mutex
	requests map[string]int
	auth     Authorizer
	faults   []*fault
	// offline is set while the cluster is off the network (SetReachable).
	offline bool
	// served are the resources discovery lists (ServeResources), servedSeq
	// their order.
	served    map[schema.GroupVersionResource]Resource
	servedSeq []schema.GroupVersionResource
	// logs are the containers' logs GET pods/log serves (SetLog).
	logs map[logKey]string
}

// fault is one armed FailRequest.
type fault struct {
	verb string
	left int
	err  error
}

// Verbs counted by Requests, named as in RBAC and audit logs.
const (
	VerbGet              = "get"
	VerbList             = "list"
	VerbWatch            = "watch"
	VerbCreate           = "create"
	VerbUpdate           = "update"
	VerbPatch            = "patch"
	VerbDelete           = "delete"
	VerbDeleteCollection = "deletecollection"
	// VerbAccessReview counts SelfSubjectAccessReviews and
	// SelfSubjectRulesReviews: creates that store nothing,
	// counted apart so that Writes counts only requests that change the cluster.
	VerbAccessReview = "accessreview"
)

// WriteVerbs are the verbs that change the cluster, for checking that a read-only
// code path made none of them.
var WriteVerbs = []string{VerbCreate, VerbUpdate, VerbPatch, VerbDelete, VerbDeleteCollection}

// SystemNamespaces are the namespaces a new Cluster holds, as a fresh cluster does.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// NewCluster returns an empty cluster holding only SystemNamespaces.
func NewCluster() *Cluster {
	c := &Cluster{store: newStore(), requests: make(map[string]int), served: map[schema.GroupVersionResource]Resource{}, logs: map[logKey]string{}}
	f := fake.NewSimpleClientset()
	// Replace the fake's tracker-backed reactors outright, so every request meets
	// the store and nothing reaches the tracker.
	// GET /version (discovery's ServerVersion) answers with the fake's version:
	// what a client asks to learn that the cluster is there.
	version := func(k8stesting.Action) (bool, runtime.Object, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		return true, nil, c.unreachable("get version")
	}
	f.ReactionChain = []k8stesting.Reactor{
		&k8stesting.SimpleReactor{Verb: "get", Resource: "version", Reaction: version},
		&k8stesting.SimpleReactor{Verb: "get", Resource: "group", Reaction: c.reactDiscovery},
		&k8stesting.SimpleReactor{Verb: "get", Resource: "resource", Reaction: c.reactDiscovery},
		&k8stesting.SimpleReactor{Verb: "*", Resource: "*", Reaction: c.react},
	}
	f.WatchReactionChain = []k8stesting.WatchReactor{&k8stesting.SimpleWatchReactor{Resource: "*", Reaction: c.reactWatch}}
	f.ProxyReactionChain = nil
	c.clientset = &clientset{Clientset: f, cluster: c}
	c.ServeResources(builtinResources...)
	c.store.mu.Lock()
	defer c.store.mu.Unlock()
	for _, ns := range SystemNamespaces {
		_, _ = c.store.createLocked(namespacesGVR, "", Namespace(ns), false) // fixed valid names: cannot fail
	}
	return c
}

// Namespace returns a Namespace object named name, for Add.
func Namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// Add creates objects (typed objects of client-go's scheme) as if through the API,
// with every create rule applied, in order. It is not counted as requests and no
// injected failure applies. The namespace of a namespaced object must exist: add
// the Namespace first.
func (c *Cluster) Add(objects ...runtime.Object) error {
	for _, obj := range objects {
		gvks, _, err := scheme.Scheme.ObjectKinds(obj)
		if err != nil {
			return fmt.Errorf("add %T: %w", obj, err)
		}
		gvr, _ := meta.UnsafeGuessKindToResource(gvks[0])
		m, err := meta.Accessor(obj)
		if err != nil {
			return fmt.Errorf("add %T: %w", obj, err)
		}
		if _, err := c.store.create(gvr, m.GetNamespace(), obj, false); err != nil {
			return fmt.Errorf("add %s %s/%s: %w", gvr.Resource, m.GetNamespace(), m.GetName(), err)
		}
	}
	return nil
}

// SetClock makes the cluster read the time from now, for creationTimestamps. The
// default is time.Now.
func (c *Cluster) SetClock(now func() time.Time) {
	c.store.mu.Lock()
	defer c.store.mu.Unlock()
	c.store.now = now
}

// Backdate sets the creationTimestamp of the stored object of resource gvr
// ns/name to t, as a cluster restored from a backup holds objects created
// before it started: the demo dates each record by its revision. The object is
// otherwise unchanged; it is stored under a new resourceVersion and watchers
// see it modified.
func (c *Cluster) Backdate(gvr schema.GroupVersionResource, ns, name string, t time.Time) error {
	s := c.store
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.objects[gvr][storageKey(ns, name)]
	if !ok {
		return apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	o := copyOf(old)
	o.SetCreationTimestamp(metav1.NewTime(t).Rfc3339Copy())
	s.put(gvr, o, old)
	return nil
}

// Clientset returns a client for the cluster. It is client-go's fake clientset
// with every reactor replaced by the cluster's, so do not reach for its Tracker.
// Its Secrets and ConfigMaps clients honour a cancelled context and answer an
// invalid selector with BadRequest, as a real client and server do.
func (c *Cluster) Clientset() kubernetes.Interface { return c.clientset }

// Metadata returns a metadata client backed by the same objects: what it lists and
// gets is the current state, as PartialObjectMetadata without apiVersion and kind,
// as client-go's metadata client returns them. Its requests are counted and can be
// failed like the clientset's.
func (c *Cluster) Metadata() metadata.Interface { return metadataClient{c} }

// begin counts a request and tells whether an injected failure answers it.
func (c *Cluster) begin(verb string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.unreachable(verb); err != nil {
		return err
	}
	c.requests[verb]++
	var fired error
	kept := c.faults[:0]
	for _, f := range c.faults {
		if f.verb == "" || f.verb == verb {
			f.left--
			if f.left == 0 {
				if fired == nil {
					fired = f.err
				}
				continue
			}
		}
		kept = append(kept, f)
	}
	clear(c.faults[len(kept):])
	c.faults = kept
	return fired
}

// actionVerb names a client-go testing action's verb as RBAC does.
func actionVerb(a k8stesting.Action) string {
	if a.GetVerb() == "delete-collection" {
		return VerbDeleteCollection
	}
	return a.GetVerb()
}

// Authorizer tells whether the cluster's user may do verb on resource (a
// resource name such as "secrets") in namespace ns ("" for a request across all
// namespaces or of a cluster-scoped resource), and when not, why.
type Authorizer func(ns, verb, resource string) (allowed bool, reason string)

// Authorize makes the cluster judge requests by auth: a denied request fails with
// Forbidden, as from a real API server, and SelfSubjectAccessReviews get auth's
// answer. nil, the default, allows everything, as for a cluster admin.
func (c *Cluster) Authorize(auth Authorizer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auth = auth
}

// authorize returns the Forbidden error of a request auth denies, nil otherwise.
func (c *Cluster) authorize(ns, verb string, gr schema.GroupResource, name string) error {
	c.mu.Lock()
	auth := c.auth
	c.mu.Unlock()
	if auth == nil {
		return nil
	}
	if ok, _ := auth(ns, verb, gr.Resource); ok {
		return nil
	}
	where := "at the cluster scope"
	if ns != "" {
		where = fmt.Sprintf("in the namespace %q", ns)
	}
	return apierrors.NewForbidden(gr, name, fmt.Errorf("User %q cannot %s resource %q in API group %q %s", DemoUser, verb, gr.Resource, gr.Group, where))
}

// DemoUser is the user name in the Forbidden errors of Authorize.
const DemoUser = "demo"

// review answers a SelfSubjectAccessReview by the authorizer.
func (c *Cluster) review(obj runtime.Object) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %T", obj))
	}
	r = r.DeepCopy()
	attrs := r.Spec.ResourceAttributes
	if attrs == nil {
		return nil, apierrors.NewBadRequest("spec.resourceAttributes is required here")
	}
	c.mu.Lock()
	auth := c.auth
	c.mu.Unlock()
	r.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true}
	if auth != nil {
		ok, why := auth(attrs.Namespace, attrs.Verb, attrs.Resource)
		r.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: ok}
		if !ok {
			r.Status.Reason = why
		}
	}
	return r, nil
}

// rulesReview answers a SelfSubjectRulesReview: every verb on every resource
// for the cluster admin (no Authorizer), else an incomplete review with no
// rules, as from an authorizer that cannot list its rules (a webhook's):
// the Authorizer is a function, so each access is asked with a
// SelfSubjectAccessReview, as a real client then asks it.
func (c *Cluster) rulesReview(obj runtime.Object) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %T", obj))
	}
	r = r.DeepCopy()
	c.mu.Lock()
	auth := c.auth
	c.mu.Unlock()
	if auth == nil {
		all := []string{"*"}
		r.Status = authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{{Verbs: all, APIGroups: all, Resources: all}}}
		return r, nil
	}
	r.Status = authorizationv1.SubjectRulesReviewStatus{Incomplete: true, EvaluationError: "the authorizer cannot list its rules"}
	return r, nil
}

func (c *Cluster) react(action k8stesting.Action) (bool, runtime.Object, error) {
	gvr, ns := action.GetResource(), action.GetNamespace()
	if gvr.Resource == "selfsubjectrulesreviews" {
		if err := c.begin(VerbAccessReview); err != nil {
			return true, nil, err
		}
		a, ok := action.(k8stesting.CreateActionImpl)
		if !ok {
			return true, nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), action.GetVerb())
		}
		obj, err := c.rulesReview(a.Object)
		return true, obj, err
	}
	if gvr.Resource == "selfsubjectaccessreviews" {
		if err := c.begin(VerbAccessReview); err != nil {
			return true, nil, err
		}
		a, ok := action.(k8stesting.CreateActionImpl)
		if !ok {
			return true, nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), action.GetVerb())
		}
		obj, err := c.review(a.Object)
		return true, obj, err
	}
	if err := c.begin(actionVerb(action)); err != nil {
		return true, nil, err
	}
	var name string
	if a, ok := action.(interface{ GetName() string }); ok {
		name = a.GetName()
	}
	if err := c.authorize(ns, actionVerb(action), gvr.GroupResource(), name); err != nil {
		return true, nil, err
	}
	var (
		obj runtime.Object
		err error
	)
	switch a := action.(type) {
	case k8stesting.GetActionImpl:
		obj, err = c.store.get(gvr, ns, a.Name)
	case k8stesting.ListActionImpl:
		obj, err = c.store.listTyped(gvr, a.Kind, ns, a.ListOptions)
	case k8stesting.CreateActionImpl:
		if a.Subresource != "" {
			return true, nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), "create "+a.Subresource)
		}
		obj, err = c.store.create(gvr, ns, a.Object, isDryRun(a.CreateOptions.DryRun))
	case k8stesting.UpdateActionImpl:
		obj, err = c.store.update(gvr, ns, a.Object, isDryRun(a.UpdateOptions.DryRun))
	case k8stesting.PatchActionImpl:
		obj, err = c.store.patch(gvr, ns, a.Name, a.PatchType, a.Patch, isDryRun(a.PatchOptions.DryRun))
	case k8stesting.DeleteActionImpl:
		err = c.store.delete(gvr, ns, a.Name, a.DeleteOptions)
	case k8stesting.DeleteCollectionActionImpl:
		err = c.store.deleteCollection(gvr, ns, a.DeleteOptions, a.ListOptions)
	default:
		err = apierrors.NewMethodNotSupported(gvr.GroupResource(), action.GetVerb())
	}
	if err != nil {
		return true, nil, err
	}
	return true, obj, nil
}

func (c *Cluster) reactWatch(action k8stesting.Action) (bool, watch.Interface, error) {
	if err := c.begin(VerbWatch); err != nil {
		return true, nil, err
	}
	if err := c.authorize(action.GetNamespace(), VerbWatch, action.GetResource().GroupResource(), ""); err != nil {
		return true, nil, err
	}
	var opts metav1.ListOptions
	if a, ok := action.(k8stesting.WatchActionImpl); ok {
		opts = a.ListOptions
	}
	w, err := c.store.watch(action.GetResource(), action.GetNamespace(), opts, nil)
	if err != nil {
		return true, nil, err
	}
	return true, w, nil
}
