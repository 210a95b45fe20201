package live_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/chunkview/chunkview/kube/live"
)

// TestDescribeConditions: Describe reads the status conditions of every kind it
// describes, whose condition types differ: each field shown (type, status,
// reason, message, last transition) comes from the object's own condition, the
// message masked by scrub.
func TestDescribeConditions(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	meta := func(kind string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "ns", Name: strings.ToLower(kind)}
	}
	objs := map[string]runtime.Object{
		"Deployment": &appsv1.Deployment{ObjectMeta: meta("Deployment"), Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
			{Type: "Deployment-type", Status: corev1.ConditionFalse, Reason: "Deployment-reason", Message: "Deployment-message secret", LastTransitionTime: at}}}},
		"StatefulSet": &appsv1.StatefulSet{ObjectMeta: meta("StatefulSet"), Status: appsv1.StatefulSetStatus{Conditions: []appsv1.StatefulSetCondition{
			{Type: "StatefulSet-type", Status: corev1.ConditionFalse, Reason: "StatefulSet-reason", Message: "StatefulSet-message secret", LastTransitionTime: at}}}},
		"DaemonSet": &appsv1.DaemonSet{ObjectMeta: meta("DaemonSet"), Status: appsv1.DaemonSetStatus{Conditions: []appsv1.DaemonSetCondition{
			{Type: "DaemonSet-type", Status: corev1.ConditionFalse, Reason: "DaemonSet-reason", Message: "DaemonSet-message secret", LastTransitionTime: at}}}},
		"Job": &batchv1.Job{ObjectMeta: meta("Job"), Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{
			{Type: "Job-type", Status: corev1.ConditionFalse, Reason: "Job-reason", Message: "Job-message secret", LastTransitionTime: at}}}},
		"Pod": &corev1.Pod{ObjectMeta: meta("Pod"), Status: corev1.PodStatus{Conditions: []corev1.PodCondition{
			{Type: "Pod-type", Status: corev1.ConditionFalse, Reason: "Pod-reason", Message: "Pod-message secret", LastTransitionTime: at}}}},
	}
	var all []runtime.Object
	for _, o := range objs {
		all = append(all, o)
	}
	cs := fake.NewClientset(all...)
	scrub := func(s string) string { return strings.ReplaceAll(s, "secret", "<masked>") }
	for _, kind := range live.DescribeKinds {
		d, err := live.Describe(t.Context(), cs, kind, "ns", strings.ToLower(kind), scrub)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		want := live.Condition{Type: kind + "-type", Status: "False", Reason: kind + "-reason", Message: kind + "-message <masked>", LastTransition: at.Time}
		if len(d.Conditions) != 1 || !d.Conditions[0].LastTransition.Equal(want.LastTransition) {
			t.Errorf("%s: conditions %+v, want [%+v]", kind, d.Conditions, want)
			continue
		}
		got := d.Conditions[0]
		got.LastTransition = want.LastTransition
		if got != want {
			t.Errorf("%s: condition %+v, want %+v", kind, d.Conditions[0], want)
		}
	}
}
