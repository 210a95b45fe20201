package apis

import (
	"fmt"
	"strings"
	"testing"
)

func TestSuccessor(t *testing.T) {
	s := cluster137()
	for _, tc := range []struct {
		apiVersion, kind string
		want, from       string // want "" means none
	}{
		{"extensions/v1beta1", "Ingress", "networking.k8s.io/v1", FromLifecycle},
		{"extensions/v1beta1", "Deployment", "apps/v1", FromLifecycle},
		{"batch/v1beta1", "CronJob", "batch/v1", FromLifecycle},
		{"policy/v1beta1", "PodDisruptionBudget", "policy/v1", FromLifecycle},
		// v1beta1 → v1beta3 (the data) → v1 (the data again): the first served.
		{"flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema", "flowcontrol.apiserver.k8s.io/v1", FromLifecycle},
		{"storage.k8s.io/v1beta1", "VolumeAttributesClass", "storage.k8s.io/v1", FromLifecycle},
		// Gone from k8s.io/api: the table answers, citing the release.
		{"autoscaling/v2beta2", "HorizontalPodAutoscaler", "autoscaling/v2", "Kubernetes 1.26 removed autoscaling/v2beta2"},
		{"autoscaling/v2beta1", "HorizontalPodAutoscaler", "autoscaling/v2", "Kubernetes 1.25 removed autoscaling/v2beta1"},
		// The data names no replacement: the table does.
		{"networking.k8s.io/v1beta1", "IPAddress", "networking.k8s.io/v1", "Kubernetes 1.37 removed networking.k8s.io/v1beta1"},
		{"admissionregistration.k8s.io/v1beta1", "ValidatingAdmissionPolicy", "admissionregistration.k8s.io/v1", "Kubernetes 1.34 removed admissionregistration.k8s.io/v1beta1"},
		// The data names IngressClassList: refused, the table answers.
		{"networking.k8s.io/v1beta1", "IngressClass", "networking.k8s.io/v1", "Kubernetes 1.22 removed networking.k8s.io/v1beta1"},
		// A custom resource: a version its CRD still serves, the preferred.
		{"example.com/v1alpha1", "Widget", "example.com/v2", FromDiscovery},
		// Nothing replaces PodSecurityPolicy, under either group.
		{"policy/v1beta1", "PodSecurityPolicy", "", ""},
		{"extensions/v1beta1", "PodSecurityPolicy", "", ""},
		// A custom resource whose CRD is gone.
		{"gone.example.com/v1", "Thing", "", ""},
	} {
		got, ok := s.Successor(tc.apiVersion, tc.kind)
		if tc.want == "" {
			if ok {
				t.Errorf("%s %s: got successor %+v, want none", tc.apiVersion, tc.kind, got)
			}
			continue
		}
		if !ok || got.APIVersion != tc.want || got.Kind != tc.kind || got.From != tc.from {
			t.Errorf("%s %s: got %+v (%v), want %s %s from %q", tc.apiVersion, tc.kind, got, ok, tc.want, tc.kind, tc.from)
		}
	}
}

func TestCheck(t *testing.T) {
	s := cluster137()
	doc := func(apiVersion, kind, name string) string {
		return fmt.Sprintf("---\n# Source: shop/templates/%s.yaml\napiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n", strings.ToLower(kind), apiVersion, kind, name)
	}
	rev := Revision{
		Manifest: doc("v1", "ConfigMap", "fine") +
			doc("apps/v1", "Deployment", "fine") +
			doc("policy/v1beta1", "PodDisruptionBudget", "pdb") +
			doc("example.com/v1alpha1", "Widget", "w") +
			doc("example.com/v1", "Widget", "still-served") +
			doc("policy/v1beta1", "PodSecurityPolicy", "psp") +
			doc("resource.k8s.io/v1beta1", "DeviceClass", "gpu") +
			doc("admissionregistration.k8s.io/v1beta1", "MutatingAdmissionPolicy", "map") +
			doc("metrics.k8s.io/v1beta1", "PodMetrics", "unknown"),
		Hooks: []Hook{{Name: "migrate", Manifest: doc("batch/v1beta1", "CronJob", "nightly")}},
	}
	type row struct {
		ref     string
		problem Problem
		succ    string
	}
	for _, tc := range []struct {
		name   string
		target Version
		want   []row
	}{
		{"the cluster's release", Version{}, []row{
			{"PodDisruptionBudget/pdb", Unserved, "policy/v1"},
			{"Widget/w", Unserved, "example.com/v2"},
			{"PodSecurityPolicy/psp", Unserved, ""},
			{"DeviceClass/gpu", Deprecated, "resource.k8s.io/v1"},
			{"MutatingAdmissionPolicy/map", Deprecated, ""},
			{"PodMetrics/unknown", Unknown, ""},
			{"CronJob/nightly", Unserved, "batch/v1"},
		}},
		{"--kube-version 1.38", Version{1, 38}, []row{
			{"PodDisruptionBudget/pdb", Unserved, "policy/v1"},
			{"Widget/w", Unserved, "example.com/v2"},
			{"PodSecurityPolicy/psp", Unserved, ""},
			{"DeviceClass/gpu", Removed, "resource.k8s.io/v1"},
			{"MutatingAdmissionPolicy/map", Deprecated, ""},
			{"PodMetrics/unknown", Unknown, ""},
			{"CronJob/nightly", Unserved, "batch/v1"},
		}},
		{"--kube-version 1.40", Version{1, 40}, []row{
			{"PodDisruptionBudget/pdb", Unserved, "policy/v1"},
			{"Widget/w", Unserved, "example.com/v2"},
			{"PodSecurityPolicy/psp", Unserved, ""},
			{"DeviceClass/gpu", Removed, "resource.k8s.io/v1"},
			{"MutatingAdmissionPolicy/map", Removed, ""},
			{"PodMetrics/unknown", Unknown, ""},
			{"CronJob/nightly", Unserved, "batch/v1"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(rev, s, Options{Target: tc.target})
			var got []row
			for _, f := range r.Findings {
				succ := ""
				if f.Successor != nil {
					succ = f.Successor.APIVersion
				}
				got = append(got, row{f.Ref(), f.Problem, succ})
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got\n%v\nwant\n%v", got, tc.want)
			}
			if !r.CannotUpgrade() {
				t.Error("a release with unserved objects cannot be upgraded")
			}
		})
	}

	r := Check(rev, s, Options{})
	if got := r.Findings[len(r.Findings)-1]; got.Hook != "migrate" || got.Template != "shop/templates/cronjob.yaml" {
		t.Errorf("the hook's finding names its hook and template: %+v", got.Object)
	}
	sum := r.Summary()
	for _, w := range []string{CannotUpgrade, "PodDisruptionBudget/pdb (policy/v1beta1)", "Widget/w (example.com/v1alpha1)", "CronJob/nightly (batch/v1beta1)"} {
		if !strings.Contains(sum, w) {
			t.Errorf("the summary %q lacks %q", sum, w)
		}
	}
	if strings.Contains(sum, "gpu") {
		t.Errorf("the summary names only the unserved objects: %q", sum)
	}
	if got := r.Findings[0].String(); got != "PodDisruptionBudget/pdb (policy/v1beta1): not served since 1.25; policy/v1 serves it" {
		t.Errorf("String: %q", got)
	}
	if got := r.Findings[2].String(); got != "PodSecurityPolicy/psp (policy/v1beta1): not served since 1.25; no served version replaces it" {
		t.Errorf("String: %q", got)
	}

	fine := Check(Revision{Manifest: doc("v1", "ConfigMap", "a") + doc("apps/v1", "Deployment", "b")}, s, Options{})
	if len(fine.Findings) != 0 || fine.CannotUpgrade() || fine.Summary() != "" {
		t.Errorf("a release of served, GA kinds has no findings: %+v", fine)
	}
	bad := Check(Revision{Manifest: "kind: [\n"}, s, Options{})
	if len(bad.Unreadable) != 1 {
		t.Errorf("an unreadable document is said: %+v", bad)
	}
}
