package ops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/chunkview/chunkview/storage"
)

// Helm's own Secrets and ConfigMaps drivers write unconditionally: Update sends a
// fresh object with no resourceVersion and Delete sends no preconditions, so an
// operation run through them would overwrite whatever another writer stored since
// the user confirmed the plan. They cannot be told otherwise, but they reach the
// cluster only through the typed client they are given. pinSecrets and
// pinConfigMaps wrap that client so that every read and write is held to the plan's
// records: a read that finds the release moved on and a write the API server
// refuses for a changed record fail with an error wrapping storage.ErrConflict, and
// Helm, which wraps errors with github.com/pkg/errors (Unwrap kept), hands it back.
//
// Helm ignores some failed writes (rollback's and uninstall's status updates are
// only logged) and flattens others to text (uninstall's purge), so pins also keeps
// that a conflict was met: the caller asks conflicted() after the action, whatever
// it returned.
//
// Watch, Patch, Apply and DeleteCollection pass through unpinned: Helm's drivers
// never call them.

// pins holds a plan's records (key → resourceVersion) for one release, updated as
// the operation writes, and remembers whether a conflict was met and what was
// written.
type pins struct {
	mu      sync.Mutex
	release string
	// records maps each record the operation may touch to the resourceVersion it
	// must still have: the plan's, then the one the operation's own write left.
	records map[string]string
	// labels holds each record's labels as seen at its pinned resourceVersion, so
	// that a filtered listing (Helm's "status=deployed" query) knows which planned
	// records it must return.
	labels   map[string]map[string]string
	conflict atomic.Bool
	// writes says what was written, in order, e.g. "revision 3 updated".
	writes []string
}

// newPins returns the pins of release held to records (key → resourceVersion). The
// map is copied: the plan's own stays as the user confirmed it.
func newPins(release string, records map[string]string) *pins {
	return &pins{release: release, records: maps.Clone(records), labels: map[string]map[string]string{}}
}

// conflicted reports whether any call met a record that changed since the plan,
// including one whose error Helm ignored or flattened.
func (p *pins) conflicted() bool { return p.conflict.Load() }

// written returns what the operation wrote so far, in order.
func (p *pins) written() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.writes)
}

// revision names the record of key in messages: "revision 3", or the key itself
// when it is not one of this release's.
func (p *pins) revision(key string) string {
	if name, rev, ok := storage.ParseKey(key); ok && name == p.release {
		return fmt.Sprintf("revision %d", rev)
	}
	return fmt.Sprintf("record %q", key)
}

// ours reports whether an object is one of this release's records.
func (p *pins) ours(m metav1.Object) bool {
	if m.GetLabels()["name"] == p.release {
		return true
	}
	name, _, ok := storage.ParseKey(m.GetName())
	return ok && name == p.release
}

// conflictf returns an error wrapping storage.ErrConflict (and cause, when set) and
// keeps that a conflict was met. The message never says "not found": Helm's
// DeployedAll takes any error that does for "no deployed release".
func (p *pins) conflictf(cause error, format string, args ...any) error {
	p.conflict.Store(true)
	msg := fmt.Sprintf(format, args...)
	if cause != nil {
		return fmt.Errorf("%w: release %q: %s: %w", storage.ErrConflict, p.release, msg, cause)
	}
	return fmt.Errorf("%w: release %q: %s", storage.ErrConflict, p.release, msg)
}

// checkGet holds the result of a Get of key to the plan. m is read only when err is
// nil.
func (p *pins) checkGet(key string, m metav1.Object, err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	rv, planned := p.records[key]
	switch {
	case err != nil && planned && apierrors.IsNotFound(err):
		// The server's NotFound is not wrapped: Helm would turn it into
		// ErrReleaseNotFound and the conflict would be lost.
		return p.conflictf(nil, "%s was deleted since the plan", p.revision(key))
	case err != nil:
		return err
	case planned && m.GetResourceVersion() != rv:
		return p.conflictf(nil, "%s was rewritten since the plan (resourceVersion %s, planned %s)", p.revision(key), m.GetResourceVersion(), rv)
	case planned:
		p.labels[key] = m.GetLabels()
	case p.ours(m):
		return p.conflictf(nil, "%s was added since the plan", p.revision(key))
	}
	return nil
}

// checkList holds a listing to the plan: every record of the release it returns
// must be planned, at its planned resourceVersion, and every planned record the
// listing's selector matches must be there.
func (p *pins) checkList(opts metav1.ListOptions, items []metav1.Object) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var problems []string
	seen := map[string]bool{}
	for _, m := range items {
		if !p.ours(m) {
			continue
		}
		key := m.GetName()
		seen[key] = true
		rv, planned := p.records[key]
		switch {
		case !planned:
			problems = append(problems, p.revision(key)+" was added")
		case m.GetResourceVersion() != rv:
			problems = append(problems, p.revision(key)+" was rewritten")
		default:
			p.labels[key] = m.GetLabels()
		}
	}
	// A page or a field-filtered listing need not hold every record; Helm's
	// drivers list whole, by labels only.
	if opts.Limit == 0 && opts.Continue == "" && opts.FieldSelector == "" {
		sel, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return fmt.Errorf("list: selector %q: %w", opts.LabelSelector, err)
		}
		for _, key := range slices.Sorted(maps.Keys(p.records)) {
			if seen[key] {
				continue
			}
			have := p.labels[key]
			if have == nil {
				// Labels not seen yet: every Helm record carries these, so a
				// selector that needs more (a status) cannot be judged, and is
				// not held against the record.
				have = map[string]string{"name": p.release, "owner": storage.HelmOwner}
			}
			if sel.Matches(labels.Set(have)) {
				problems = append(problems, p.revision(key)+" was deleted or rewritten")
			}
		}
	}
	if len(problems) > 0 {
		return p.conflictf(nil, "changed since the plan: %s", strings.Join(problems, ", "))
	}
	return nil
}

// pinned returns the resourceVersion a write of key must hold to, or a conflict
// when key is not a record of the plan: writing it would change what the user did
// not confirm.
func (p *pins) pinned(key, op string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rv, ok := p.records[key]
	if !ok {
		return "", p.conflictf(nil, "%s is not in the plan: refusing to %s it", p.revision(key), op)
	}
	return rv, nil
}

// wrote holds the result of a write of key (verb: "created", "updated",
// "deleted") to the plan: a refusal for a changed or deleted record becomes a
// conflict; a success moves the pin to the resourceVersion the write left.
func (p *pins) wrote(key, verb string, m metav1.Object, err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err != nil && apierrors.IsAlreadyExists(err):
		// Another writer stored this revision first. The error goes back as is:
		// Helm turns it into driver.ErrReleaseExists.
		p.conflict.Store(true)
		return err
	case err != nil && apierrors.IsConflict(err):
		return p.conflictf(err, "%s was changed by another writer since the plan", p.revision(key))
	case err != nil && apierrors.IsNotFound(err):
		return p.conflictf(nil, "%s was deleted since the plan", p.revision(key))
	case err != nil:
		return err
	case verb == "deleted":
		delete(p.records, key)
		delete(p.labels, key)
	default:
		p.records[key] = m.GetResourceVersion()
		p.labels[key] = m.GetLabels()
	}
	p.writes = append(p.writes, p.revision(key)+" "+verb)
	return nil
}

// deleteOptions adds the pinned resourceVersion to a delete's preconditions. The
// resourceVersion alone is enough: it is the store's revision of the write, so an
// object deleted and created again never carries an old one.
func deleteOptions(opts metav1.DeleteOptions, rv string) metav1.DeleteOptions {
	pre := metav1.Preconditions{}
	if opts.Preconditions != nil {
		pre = *opts.Preconditions
	}
	pre.ResourceVersion = &rv
	opts.Preconditions = &pre
	return opts
}

// pinSecrets returns impl held to p: the client Helm's Secrets driver writes
// through (driver.NewSecrets(pinSecrets(...))).
func pinSecrets(impl corev1client.SecretInterface, p *pins) corev1client.SecretInterface {
	return &pinnedSecrets{SecretInterface: impl, p: p}
}

type pinnedSecrets struct {
	corev1client.SecretInterface
	p *pins
}

func (s *pinnedSecrets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	obj, err := s.SecretInterface.Get(ctx, name, opts)
	if err := s.p.checkGet(name, obj, err); err != nil {
		return nil, err
	}
	return obj, nil
}

func (s *pinnedSecrets) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	list, err := s.SecretInterface.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	items := make([]metav1.Object, len(list.Items))
	for i := range list.Items {
		items[i] = &list.Items[i]
	}
	if err := s.p.checkList(opts, items); err != nil {
		return nil, err
	}
	return list, nil
}

func (s *pinnedSecrets) Create(ctx context.Context, obj *corev1.Secret, opts metav1.CreateOptions) (*corev1.Secret, error) {
	res, err := s.SecretInterface.Create(ctx, obj, opts)
	if err := s.p.wrote(obj.Name, "created", res, err); err != nil {
		return nil, err
	}
	return res, nil
}

func (s *pinnedSecrets) Update(ctx context.Context, obj *corev1.Secret, opts metav1.UpdateOptions) (*corev1.Secret, error) {
	rv, err := s.p.pinned(obj.Name, "update")
	if err != nil {
		return nil, err
	}
	// A copy: the caller's object is Helm's, not ours to change.
	held := *obj
	held.ResourceVersion = rv
	res, err := s.SecretInterface.Update(ctx, &held, opts)
	if err := s.p.wrote(obj.Name, "updated", res, err); err != nil {
		return nil, err
	}
	return res, nil
}

func (s *pinnedSecrets) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	rv, err := s.p.pinned(name, "delete")
	if err != nil {
		return err
	}
	err = s.SecretInterface.Delete(ctx, name, deleteOptions(opts, rv))
	return s.p.wrote(name, "deleted", nil, err)
}

// pinConfigMaps returns impl held to p: the client Helm's ConfigMaps driver writes
// through (driver.NewConfigMaps(pinConfigMaps(...))).
func pinConfigMaps(impl corev1client.ConfigMapInterface, p *pins) corev1client.ConfigMapInterface {
	return &pinnedConfigMaps{ConfigMapInterface: impl, p: p}
}

type pinnedConfigMaps struct {
	corev1client.ConfigMapInterface
	p *pins
}

func (c *pinnedConfigMaps) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ConfigMap, error) {
	obj, err := c.ConfigMapInterface.Get(ctx, name, opts)
	if err := c.p.checkGet(name, obj, err); err != nil {
		return nil, err
	}
	return obj, nil
}

func (c *pinnedConfigMaps) List(ctx context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error) {
	list, err := c.ConfigMapInterface.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	items := make([]metav1.Object, len(list.Items))
	for i := range list.Items {
		items[i] = &list.Items[i]
	}
	if err := c.p.checkList(opts, items); err != nil {
		return nil, err
	}
	return list, nil
}

func (c *pinnedConfigMaps) Create(ctx context.Context, obj *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error) {
	res, err := c.ConfigMapInterface.Create(ctx, obj, opts)
	if err := c.p.wrote(obj.Name, "created", res, err); err != nil {
		return nil, err
	}
	return res, nil
}

func (c *pinnedConfigMaps) Update(ctx context.Context, obj *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	rv, err := c.p.pinned(obj.Name, "update")
	if err != nil {
		return nil, err
	}
	held := *obj
	held.ResourceVersion = rv
	res, err := c.ConfigMapInterface.Update(ctx, &held, opts)
	if err := c.p.wrote(obj.Name, "updated", res, err); err != nil {
		return nil, err
	}
	return res, nil
}

func (c *pinnedConfigMaps) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	rv, err := c.p.pinned(name, "delete")
	if err != nil {
		return err
	}
	err = c.ConfigMapInterface.Delete(ctx, name, deleteOptions(opts, rv))
	return c.p.wrote(name, "deleted", nil, err)
}
