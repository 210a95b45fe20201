package ops

import (
	"context"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// Other writers put metadata of their own on a release's records: OLMv1's
// operator-controller writes them through helm-operator-plugins'
// OwnerRefSecretClient, which gives every index Secret the ClusterExtension's
// controller reference (so that deleting the extension collects them, and so
// that chunkview knows the release's controller); others add labels and
// annotations. Helm's drivers and chunkview's write a record whole, with their
// own metadata only, so a revision an operation writes would lose them, and with
// them the controller guard of every later operation. A carrier puts them back:
// every record of the release an operation creates gets what other writers put
// on the record it continues (the latest revision below it), and every record
// it rewrites keeps its own.

// recordMeta is the metadata of one record as it was read.
type recordMeta struct {
	refs        []metav1.OwnerReference
	labels      map[string]string
	annotations map[string]string
}

// carrier remembers the metadata of a release's records as the drivers read
// them, and adds other writers' parts of it to the records they write.
type carrier struct {
	release string
	// labels is set when labels other than the driver's own are other
	// writers' (the chunked store, whose release labels live in the payload):
	// Helm's stores take every label for one of the release's.
	labels bool
	// planned are the plan's revisions, to find the record a new one continues.
	planned []int

	mu   sync.Mutex
	seen map[int]recordMeta
}

// newCarrier returns the carrier of the release of plan p.
func newCarrier(p *Plan) *carrier {
	c := &carrier{release: p.Release, labels: p.Driver == kube.DriverChunked, seen: map[int]recordMeta{}}
	for _, r := range p.Rows {
		c.planned = append(c.planned, r.Revision)
	}
	return c
}

// revision returns the revision s is a record of, or false for a Secret that is
// not one of the release's records (a chunk, another release's).
func (c *carrier) revision(s *corev1.Secret) (int, bool) {
	if s == nil || s.Type == storage.SecretTypeChunk {
		return 0, false
	}
	name, rev, ok := storage.ParseKey(s.Name)
	return rev, ok && name == c.release
}

// observe remembers the metadata of a record read or written.
func (c *carrier) observe(s *corev1.Secret) {
	rev, ok := c.revision(s)
	if !ok || s.Labels[storage.LabelType] == storage.TypePending {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[rev] = recordMeta{refs: s.OwnerReferences, labels: s.Labels, annotations: s.Annotations}
}

// getter reads a Secret, as a typed client's Get.
type getter func(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error)

// source returns the metadata a write of revision rev keeps: its own, when it
// was read, else that of the revision it continues, read through get now if it
// was not.
func (c *carrier) source(ctx context.Context, rev int, get getter) (recordMeta, bool) {
	c.mu.Lock()
	if m, ok := c.seen[rev]; ok {
		c.mu.Unlock()
		return m, true
	}
	seen, planned := 0, 0
	for r := range c.seen {
		if r < rev && r > seen {
			seen = r
		}
	}
	for _, r := range c.planned {
		if r < rev && r > planned {
			planned = r
		}
	}
	m, ok := c.seen[seen]
	c.mu.Unlock()
	if planned <= seen {
		return m, ok
	}
	s, err := get(ctx, storage.RecordKey(c.release, planned), metav1.GetOptions{})
	if err != nil {
		return recordMeta{}, false
	}
	c.observe(s)
	return recordMeta{refs: s.OwnerReferences, labels: s.Labels, annotations: s.Annotations}, true
}

// carry returns s with other writers' metadata added (a copy when anything is
// added: s is the driver's).
func (c *carrier) carry(ctx context.Context, s *corev1.Secret, get getter) *corev1.Secret {
	rev, ok := c.revision(s)
	if !ok {
		return s
	}
	m, ok := c.source(ctx, rev, get)
	if !ok {
		return s
	}
	out := s.DeepCopy()
	hasController := metav1.GetControllerOfNoCopy(out) != nil
	for _, ref := range m.refs {
		if hasRefTo(out.OwnerReferences, ref) || (hasController && ref.Controller != nil && *ref.Controller) {
			continue
		}
		out.OwnerReferences = append(out.OwnerReferences, ref)
	}
	for k, v := range m.annotations {
		if _, set := out.Annotations[k]; set || strings.HasPrefix(k, storage.AnnotationPrefix) {
			continue
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[k] = v
	}
	for k, v := range m.labels {
		if _, set := out.Labels[k]; set || !c.labels || storage.IsSystemLabel(k) {
			continue
		}
		if out.Labels == nil {
			out.Labels = map[string]string{}
		}
		out.Labels[k] = v
	}
	return out
}

// hasRefTo reports whether refs hold a reference to ref's owner.
func hasRefTo(refs []metav1.OwnerReference, ref metav1.OwnerReference) bool {
	for _, r := range refs {
		if (r.UID != "" && r.UID == ref.UID) || (r.UID == "" && r.Kind == ref.Kind && r.Name == ref.Name) {
			return true
		}
	}
	return false
}

// carrySecrets returns impl with c carrying other writers' metadata onto the
// records written through it.
func carrySecrets(impl corev1client.SecretInterface, c *carrier) corev1client.SecretInterface {
	if c == nil {
		return impl
	}
	return &carriedSecrets{SecretInterface: impl, c: c}
}

type carriedSecrets struct {
	corev1client.SecretInterface
	c *carrier
}

func (s *carriedSecrets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	obj, err := s.SecretInterface.Get(ctx, name, opts)
	if err == nil {
		s.c.observe(obj)
	}
	return obj, err
}

func (s *carriedSecrets) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	list, err := s.SecretInterface.List(ctx, opts)
	if err == nil {
		for i := range list.Items {
			s.c.observe(&list.Items[i])
		}
	}
	return list, err
}

func (s *carriedSecrets) Create(ctx context.Context, obj *corev1.Secret, opts metav1.CreateOptions) (*corev1.Secret, error) {
	res, err := s.SecretInterface.Create(ctx, s.c.carry(ctx, obj, s.SecretInterface.Get), opts)
	if err == nil {
		s.c.observe(res)
	}
	return res, err
}

func (s *carriedSecrets) Update(ctx context.Context, obj *corev1.Secret, opts metav1.UpdateOptions) (*corev1.Secret, error) {
	res, err := s.SecretInterface.Update(ctx, s.c.carry(ctx, obj, s.SecretInterface.Get), opts)
	if err == nil {
		s.c.observe(res)
	}
	return res, err
}
