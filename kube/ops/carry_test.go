package ops_test

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"helm.sh/helm/v3/pkg/release"

	hopclient "github.com/operator-framework/helm-operator-plugins/pkg/client"

	"github.com/chunkview/chunkview/internal/adoption"
	"github.com/chunkview/chunkview/internal/testcluster"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// Another writer's metadata on the index Secrets, besides the extension's
// controller reference.
const (
	otherLabel, otherLabelValue = "example.com/team", "payments"
	otherNote, otherNoteValue   = "example.com/note", "kept"
)

// createExtension creates ClusterExtension name, installing into ns, and
// returns the controller reference helm-operator-plugins gives its records.
func createExtension(t *testing.T, name, ns string) metav1.OwnerReference {
	t.Helper()
	ext := adoption.ClusterExtension(name, ns)
	ext.Object["spec"].(map[string]any)["source"] = map[string]any{"sourceType": "Catalog", "catalog": map[string]any{"packageName": "app"}}
	made, err := dyn(t).Resource(testcluster.ClusterExtensions).Create(t.Context(), ext, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = dyn(t).Resource(testcluster.ClusterExtensions).Delete(t.Context(), name, metav1.DeleteOptions{})
	})
	made.SetGroupVersionKind(adoption.ClusterExtensionKind)
	return *metav1.NewControllerRef(made, adoption.ClusterExtensionKind)
}

// indexMeta returns the metadata of the index Secret of revision rev of app.
func indexMeta(t *testing.T, ns string, rev int) metav1.ObjectMeta {
	t.Helper()
	s, err := secrets(ns).Get(t.Context(), storage.RecordKey("app", rev), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.ObjectMeta
}

// mustCarry checks that revision rev of app keeps the extension's controller
// reference and the other writer's label and annotation.
func mustCarry(t *testing.T, ns string, rev int, ref metav1.OwnerReference) {
	t.Helper()
	m := indexMeta(t, ns, rev)
	if ctl := metav1.GetControllerOfNoCopy(&m); ctl == nil || ctl.UID != ref.UID || ctl.Kind != kube.KindClusterExtension {
		t.Errorf("revision %d: controller %+v, want the ClusterExtension's (uid %s)", rev, ctl, ref.UID)
	}
	if m.Labels[otherLabel] != otherLabelValue || m.Annotations[otherNote] != otherNoteValue {
		t.Errorf("revision %d lost the other writer's label or annotation: labels %v, annotations %v", rev, m.Labels, m.Annotations)
	}
}

// TestForcedOperationKeepsTheController: release app's records are written as
// OLMv1 writes them, through helm-operator-plugins' OwnerRefSecretClient (the
// ClusterExtension's controller reference on every index Secret), and another
// writer labels and annotates them. A rollback forced past the controller
// (--ignore-controller) writes revision 3 with the reference, the label and
// the annotation of the record it continues, and the revision it supersedes
// keeps them: the next, unforced, rollback is refused. It is refused too once
// the latest record has lost the reference (written by a tool that drops it):
// every revision's metadata is read.
//
// Then, in a namespace of its own, OLMv1's owner labels in the release's own
// labels (the payload's), with no controller reference on any record, name the
// release's ClusterExtension: an operation is refused while it exists.
func TestForcedOperationKeepsTheController(t *testing.T) {
	cluster.InstallOLMv1(t, false)
	t.Run("forced, then unforced", forcedThenUnforced)
	t.Run("owner labels", controllerFromOwnerLabels)
}

func forcedThenUnforced(t *testing.T) {
	ns := cluster.Namespace(t)
	ref := createExtension(t, "app-"+ns, ns)
	olm := hopclient.NewOwnerRefSecretClient(secrets(ns), []metav1.OwnerReference{ref}, func(s *corev1.Secret) bool { return s.Type == storage.SecretTypeIndex })
	seed(t, storage.NewChunkedSecrets(olm, ctlOwner, storage.ChunkedSecretsConfig{ChunkSize: 16384}), history("app", ns, 2, 2_000)...)
	for rev := 1; rev <= 2; rev++ {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{otherLabel: otherLabelValue}, "annotations": map[string]string{otherNote: otherNoteValue}}})
		if _, err := secrets(ns).Patch(t.Context(), storage.RecordKey("app", rev), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", ctlOwner}, nil)

	p, err := planOf(t.Context(), c, ns, "app")
	if err != nil {
		t.Fatal(err)
	}
	p.IgnoreController = true
	rb, err := ops.NewRunner(c).PlanRollback(t.Context(), p, 1, kube.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ops.NewRunner(c).Apply(t.Context(), rb); err != nil || rb.NewRevision != 3 {
		t.Fatalf("forced rollback: revision %d, %v", rb.NewRevision, err)
	}
	mustCarry(t, ns, 3, ref)
	mustCarry(t, ns, 2, ref)

	refused := func(when string) {
		t.Helper()
		before := snapshot(t, ns)
		_, err := applyByName(t.Context(), c, ns, "app", rollbackPlan(2, kube.DiffOptions{}))
		mustContain(t, mustErrIs(t, err, ops.ErrControlled), "ClusterExtension/app-"+ns)
		if !sameSnapshot(before, snapshot(t, ns)) {
			t.Fatalf("%s: a refused rollback changed the records", when)
		}
	}
	refused("after a forced rollback")

	if _, err := secrets(ns).Patch(t.Context(), storage.RecordKey("app", 3), types.MergePatchType, []byte(`{"metadata":{"ownerReferences":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	refused("the latest record without the reference")
}

func controllerFromOwnerLabels(t *testing.T) {
	ns := cluster.Namespace(t)
	createExtension(t, "app-"+ns, ns)
	rels := history("app", ns, 2, 2_000)
	for _, r := range rels {
		r.Labels = map[string]string{kube.OLMOwnerKindLabel: kube.KindClusterExtension, kube.OLMOwnerNameLabel: "app-" + ns}
	}
	c := ctlSeedWith(t, ns, rels)
	before := snapshot(t, ns)
	_, err := applyByName(t.Context(), c, ns, "app", rollbackPlan(1, kube.DiffOptions{}))
	mustContain(t, mustErrIs(t, err, ops.ErrControlled), "ClusterExtension/app-"+ns)
	if !sameSnapshot(before, snapshot(t, ns)) {
		t.Fatal("a refused rollback changed the records")
	}
}

// ctlSeedWith stores rels with chunkview's driver in ns, and connects to them.
func ctlSeedWith(t *testing.T, ns string, rels []*release.Release) *kube.Client {
	t.Helper()
	seed(t, chunkviewDriver(ns, ctlOwner, 16384), rels...)
	return connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", ctlOwner}, nil)
}
