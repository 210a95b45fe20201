package apis

import (
	"testing"

	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	flowcontrolv1beta1 "k8s.io/api/flowcontrol/v1beta1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// lifecycled is what every type with lifecycle data carries.
type lifecycled interface {
	lcDeprecated
	lcRemoved
}

// TestLifecycleIsK8sAPIs: LifecycleOf answers what the generated methods of
// k8s.io/api's (and apiextensions') types answer, called on the types
// directly: the data is read, not kept by hand.
func TestLifecycleIsK8sAPIs(t *testing.T) {
	for _, tc := range []struct {
		gvk schema.GroupVersionKind
		obj lifecycled
	}{
		{schema.GroupVersionKind{Group: "batch", Version: "v1beta1", Kind: "CronJob"}, &batchv1beta1.CronJob{}},
		{schema.GroupVersionKind{Group: "extensions", Version: "v1beta1", Kind: "Ingress"}, &extensionsv1beta1.Ingress{}},
		{schema.GroupVersionKind{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta1", Kind: "FlowSchema"}, &flowcontrolv1beta1.FlowSchema{}},
		{schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1beta1", Kind: "VolumeAttributesClass"}, &storagev1beta1.VolumeAttributesClass{}},
		{schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1beta1", Kind: "DeviceClass"}, &resourcev1beta1.DeviceClass{}},
		{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1beta1", Kind: "ValidatingAdmissionPolicy"}, &admissionregistrationv1beta1.ValidatingAdmissionPolicy{}},
		{schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1beta1", Kind: "CustomResourceDefinition"}, &apiextensionsv1beta1.CustomResourceDefinition{}},
	} {
		l, ok := LifecycleOf(tc.gvk)
		if !ok {
			t.Errorf("%s: no lifecycle data", tc.gvk)
			continue
		}
		dMa, dMi := tc.obj.APILifecycleDeprecated()
		rMa, rMi := tc.obj.APILifecycleRemoved()
		var repl schema.GroupVersionKind // the zero kind, for a type whose data names none
		if r, ok := tc.obj.(lcReplacement); ok {
			repl = r.APILifecycleReplacement()
		}
		if l.Deprecated != (Version{dMa, dMi}) || l.Removed != (Version{rMa, rMi}) || l.Replacement != repl {
			t.Errorf("%s: got %+v, the type says deprecated %d.%d removed %d.%d replaced by %s", tc.gvk, l, dMa, dMi, rMa, rMi, repl)
		}
	}
	if _, ok := LifecycleOf(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}); ok {
		t.Error("a GA kind has no lifecycle data")
	}
	if _, ok := LifecycleOf(schema.GroupVersionKind{Group: "example.com", Version: "v1alpha1", Kind: "Widget"}); ok {
		t.Error("a custom resource has no lifecycle data")
	}
}

// TestRemovalsAgreeWithLifecycleData holds the hand-kept table to the data:
// where k8s.io/api still carries a removed type, the table's release is the
// data's, and its successor is where the data's chain of replacements ends.
// The table only answers what the data cannot.
func TestRemovalsAgreeWithLifecycleData(t *testing.T) {
	covered, uncovered := 0, 0
	seen := map[schema.GroupVersionKind]bool{}
	for _, r := range Removals() {
		gvk := r.GVK()
		if seen[gvk] {
			t.Errorf("%s is in the table twice", gvk)
		}
		seen[gvk] = true
		if r.RemovedIn.Before(Version{1, 16}) {
			t.Errorf("%s: the table starts at 1.16", gvk)
		}
		l, ok := LifecycleOf(gvk)
		if !ok {
			uncovered++
			continue
		}
		covered++
		if l.Removed != r.RemovedIn {
			t.Errorf("%s: the table says removed in %s, the data %s", gvk, r.RemovedIn, l.Removed)
		}
		if l.Replacement.Empty() {
			continue // the data names none: the table's is the answer
		}
		if l.Replacement.Kind != gvk.Kind {
			// An error in the data (IngressClass v1beta1 names
			// IngressClassList), which replacement refuses.
			t.Logf("%s: the data names %s; the table's %s is used", gvk, l.Replacement, r.To)
			continue
		}
		end := l.Replacement
		for range maxChain {
			next, ok := LifecycleOf(end)
			if !ok || next.Replacement.Empty() {
				break
			}
			end = next.Replacement
		}
		if end.GroupVersion().String() != r.To || end.Kind != gvk.Kind {
			t.Errorf("%s: the table's successor is %s, the data's chain ends at %s", gvk, r.To, end)
		}
	}
	// The data of k8s.io/api v0.37 still carries most removals; the table
	// must carry those it does not (PodSecurityPolicy, autoscaling/v2beta*).
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "policy", Version: "v1beta1", Kind: "PodSecurityPolicy"},
		{Group: "autoscaling", Version: "v2beta1", Kind: "HorizontalPodAutoscaler"},
		{Group: "autoscaling", Version: "v2beta2", Kind: "HorizontalPodAutoscaler"},
	} {
		if _, ok := LifecycleOf(gvk); ok {
			t.Errorf("%s: the data carries it again; the test's premise moved", gvk)
		}
		if _, ok := removalOf(gvk); !ok {
			t.Errorf("%s: neither the data nor the table covers it", gvk)
		}
	}
	t.Logf("%d entries the data also covers, %d only the table", covered, uncovered)
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{"1.38": {1, 38}, "v1.37.2": {1, 37}, "1.38.0-rc.1": {1, 38}, "1.30+": {1, 30}} {
		got, err := ParseVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1", "x.y", "1.x"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
	if ServerVersion("1", "37+") != (Version{1, 37}) || !ServerVersion("", "").IsZero() {
		t.Error("ServerVersion reads a managed cluster's minor and refuses nothing else")
	}
}
