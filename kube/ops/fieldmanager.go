package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/resource"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// ErrFieldConflicts is wrapped by the refusal of a server-side rollback whose
// plan found fields another field manager owns: Helm would fail after
// recording the new revision, and leave none deployed.
var ErrFieldConflicts = errors.New("server-side apply conflicts")

// ServerSide is how a rollback that Helm 4 applies server-side (the revision
// rolled back to has apply_method ssa) applies the release's objects: under
// which field manager, and what that apply would conflict with.
type ServerSide struct {
	// Manager is the field manager the objects are applied under.
	Manager string `json:"fieldManager"`
	// Why says where Manager comes from: named by the user, read from the
	// objects' managed fields, or Helm's own for want of either.
	Why string `json:"fieldManagerFrom"`
	// Conflicts are the fields another manager owns that the apply would
	// change, found by a server-side dry-run apply of the objects.
	Conflicts []FieldConflict `json:"conflicts,omitempty"`
	// Unchecked, when set, says why the conflicts could not be looked for.
	Unchecked string `json:"unchecked,omitempty"`
}

// FieldConflict is one field of one object that another manager owns.
type FieldConflict struct {
	// Object is "Kind/name".
	Object string `json:"object"`
	// Field is the field's path, as the API server names it
	// (".metadata.labels.gen").
	Field string `json:"field"`
	// Manager is the field manager that owns it.
	Manager string `json:"manager"`
}

// Text says how the objects are applied and what conflicts, for the plan.
func (s *ServerSide) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Applied server-side as field manager %q (%s).", s.Manager, s.Why)
	switch {
	case s.Unchecked != "":
		fmt.Fprintf(&b, " Conflicts not checked: %s.", s.Unchecked)
	case len(s.Conflicts) > 0:
		fmt.Fprintf(&b, " %s owned by another manager: %s; --force-conflicts takes them over.",
			human.Plural(len(s.Conflicts), "field is", "fields are"), s.ConflictList())
	}
	return b.String()
}

// ConflictList lists the conflicts: "ConfigMap/app-config .data.color (kubectl-edit), ...".
func (s *ServerSide) ConflictList() string {
	out := make([]string, len(s.Conflicts))
	for i, c := range s.Conflicts {
		out[i] = fmt.Sprintf("%s %s (%s)", c.Object, c.Field, c.Manager)
	}
	return strings.Join(out, ", ")
}

// Where a ServerSide's manager comes from.
const (
	managerNamed   = "named by --field-manager"
	managerDefault = "Helm's own: no object of the release is managed by a server-side apply"
)

// planServerSide returns how a rollback run by Helm major, restoring revision
// to (whose objects manifest lists), applies them: nil unless Helm 4 applies
// them server-side. The manager is the user's (p.FieldManager), else the
// manager of the Apply that owns most fields of the release's live objects;
// the conflicts are what a server-side dry-run apply of each object under it
// reports (none is sent under --read-only).
func (r *Runner) planServerSide(ctx context.Context, p *Plan, major int, to kube.RevisionRow, manifest string) *ServerSide {
	if major != 4 {
		return nil
	}
	d, err := r.c.Details(ctx, to)
	if err != nil || d.Row.ApplyMethod != "ssa" {
		return nil
	}
	a, ok := appliersOf(r.c).(managedAppliers)
	if !ok {
		return nil
	}
	r.discovery()
	ss := &ServerSide{Manager: p.FieldManager, Why: managerNamed}
	resNS := r.resourceNamespace(ctx, p.latest())
	infos, err := buildWith(a, resNS, manifest)
	if err != nil {
		ss.Unchecked = "the objects cannot be built: " + human.FirstLine(err.Error(), 200)
		if ss.Manager == "" {
			ss.Manager, ss.Why = HelmFieldManager, managerDefault
		}
		return ss
	}
	live := make([]*unstructured.Unstructured, len(infos))
	var readErr error
	for i, info := range infos {
		obj, err := resource.NewHelper(info.Client, info.Mapping).Get(info.Namespace, info.Name)
		if err != nil && !apierrors.IsNotFound(err) {
			readErr = err
		}
		if u, ok := obj.(*unstructured.Unstructured); ok && err == nil {
			live[i] = u
		}
	}
	if ss.Manager == "" {
		ss.Manager, ss.Why = owningManager(live)
	}
	switch {
	case readErr != nil:
		ss.Unchecked = "the objects cannot be read: " + human.FirstLine(readErr.Error(), 200)
	case r.c.ReadOnly():
		ss.Unchecked = "a dry-run apply is a write, which --read-only does not send"
	default:
		ss.Conflicts, err = dryRunConflicts(infos, live, ss.Manager, p.Release, resNS)
		if err != nil {
			ss.Unchecked = "the dry-run apply failed: " + human.FirstLine(err.Error(), 200)
		}
	}
	return ss
}

// buildWith parses manifest into the objects Helm 4 would apply in namespace ns.
func buildWith(a Appliers, ns, manifest string) ([]*resource.Info, error) {
	kc, err := a.Helm4(ns)
	if err != nil {
		return nil, err
	}
	return kc.Build(strings.NewReader(manifest), false)
}

// owningManager returns the manager of the Apply operations that own most
// fields of the objects live, and why; Helm's own when no Apply owns any.
func owningManager(live []*unstructured.Unstructured) (string, string) {
	owned := map[string]int{}
	total := 0
	for _, u := range live {
		if u == nil {
			continue
		}
		for _, f := range u.GetManagedFields() {
			n := countFields(f.FieldsV1)
			total += n
			if f.Operation == metav1.ManagedFieldsOperationApply {
				owned[f.Manager] += n
			}
		}
	}
	best := ""
	for m, n := range owned {
		if best == "" || n > owned[best] || (n == owned[best] && m < best) {
			best = m
		}
	}
	if best == "" {
		return HelmFieldManager, managerDefault
	}
	return best, fmt.Sprintf("the manager whose server-side applies own most of the release's fields, %d of %d", owned[best], total)
}

// countFields counts the fields a managedFields entry owns: the leaves of its
// fieldsV1 set.
func countFields(f *metav1.FieldsV1) int {
	if f == nil {
		return 0
	}
	var set map[string]any
	if json.Unmarshal(f.Raw, &set) != nil {
		return 0
	}
	var count func(m map[string]any) int
	count = func(m map[string]any) int {
		n := 0
		for _, v := range m {
			sub, _ := v.(map[string]any)
			if len(sub) == 0 {
				n++
				continue
			}
			n += count(sub)
		}
		return n
	}
	return count(set)
}

// dryRunConflicts applies each object that exists (live) server-side, as a dry
// run, under manager, without forcing, as Helm 4's rollback would apply it (with
// the metadata Helm adds for release name in namespace ns), and returns the
// conflicts the API server reports. An object not there yet would be created,
// which conflicts with nothing.
func dryRunConflicts(infos []*resource.Info, live []*unstructured.Unstructured, manager, name, ns string) ([]FieldConflict, error) {
	var out []FieldConflict
	no := false
	for i, info := range infos {
		if live[i] == nil || soleOwner(live[i], manager) {
			continue
		}
		obj, ok := info.Object.(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("%s/%s: not an unstructured object", info.Mapping.GroupVersionKind.Kind, info.Name)
		}
		obj = obj.DeepCopy()
		lbs := obj.GetLabels()
		if lbs == nil {
			lbs = map[string]string{}
		}
		lbs["app.kubernetes.io/managed-by"] = "Helm"
		obj.SetLabels(lbs)
		ann := obj.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann["meta.helm.sh/release-name"], ann["meta.helm.sh/release-namespace"] = name, ns
		obj.SetAnnotations(ann)
		data, err := runtime.Encode(unstructured.UnstructuredJSONScheme, obj)
		if err != nil {
			return nil, err
		}
		_, err = resource.NewHelper(info.Client, info.Mapping).DryRun(true).WithFieldManager(manager).
			Patch(info.Namespace, info.Name, types.ApplyPatchType, data, &metav1.PatchOptions{Force: &no})
		if err == nil {
			continue
		}
		if !apierrors.IsConflict(err) {
			return nil, err
		}
		out = append(out, conflictsOf(info.Mapping.GroupVersionKind.Kind+"/"+info.Name, err)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Object < out[j].Object })
	return out, nil
}

// soleOwner reports whether manager's server-side applies own every field of
// live that another manager could: no other manager, nor manager's own Update,
// owns a field of the object itself (a status subresource's manager owns status
// alone, which an apply of the object does not set). Such an object cannot
// conflict with manager's apply, so it needs no dry run.
func soleOwner(live *unstructured.Unstructured, manager string) bool {
	fields := live.GetManagedFields()
	if len(fields) == 0 {
		return false
	}
	for _, f := range fields {
		if f.Subresource != "" {
			continue
		}
		if f.Manager != manager || f.Operation != metav1.ManagedFieldsOperationApply {
			return false
		}
	}
	return true
}

// conflictsOf reads the fields and managers of a server-side apply's conflict
// error: each cause's field, and the manager its message names (`conflict with
// "kubectl-edit" using v1`).
func conflictsOf(object string, err error) []FieldConflict {
	var st apierrors.APIStatus
	if !errors.As(err, &st) || st.Status().Details == nil || len(st.Status().Details.Causes) == 0 {
		return []FieldConflict{{Object: object, Field: "?", Manager: human.FirstLine(err.Error(), 200)}}
	}
	var out []FieldConflict
	for _, c := range st.Status().Details.Causes {
		m := c.Message
		if _, rest, ok := strings.Cut(m, `"`); ok {
			if name, _, ok := strings.Cut(rest, `"`); ok {
				m = name
			}
		}
		out = append(out, FieldConflict{Object: object, Field: c.Field, Manager: m})
	}
	return out
}
