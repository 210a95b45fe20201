package fakeapi

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAuthorize: with an authorizer, denied requests fail with the API server's
// Forbidden, allowed ones are served, and SelfSubjectAccessReviews get the
// authorizer's answer without counting as writes.
func TestAuthorize(t *testing.T) {
	c, secrets := newTestCluster(t)
	ctx := context.Background()
	if _, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.Authorize(func(ns, verb, resource string) (bool, string) {
		if resource == "secrets" && ns == "apps" && (verb == "get" || verb == "list") {
			return true, ""
		}
		return false, "no RBAC policy matched"
	})
	if _, err := secrets.Get(ctx, "s", metav1.GetOptions{}); err != nil {
		t.Fatalf("allowed get: %v", err)
	}
	if _, err := c.Metadata().Resource(secretsGVR).Namespace("apps").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("allowed metadata list: %v", err)
	}
	err := secrets.Delete(ctx, "s", metav1.DeleteOptions{})
	want := `secrets "s" is forbidden: User "demo" cannot delete resource "secrets" in API group "" in the namespace "apps"`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("denied delete = %v, want Forbidden %q", err, want)
	}
	if _, err := c.Clientset().CoreV1().Secrets("").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("list across namespaces = %v, want Forbidden", err)
	}
	if _, err := c.Metadata().Resource(secretsGVR).Namespace("other").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("metadata list in another namespace = %v, want Forbidden", err)
	}
	if _, err := secrets.Get(ctx, "s", metav1.GetOptions{}); err != nil {
		t.Fatalf("the denied delete removed the Secret: %v", err)
	}

	c.ResetRequests()
	for _, tc := range []struct {
		verb, ns string
		want     bool
	}{{"list", "apps", true}, {"update", "apps", false}, {"list", "other", false}} {
		r, err := c.Clientset().AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: tc.ns, Verb: tc.verb, Resource: "secrets",
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status.Allowed != tc.want {
			t.Errorf("review of %s secrets in %s: allowed %v, want %v", tc.verb, tc.ns, r.Status.Allowed, tc.want)
		}
		if !tc.want && r.Status.Reason != "no RBAC policy matched" {
			t.Errorf("review of %s secrets in %s: reason %q", tc.verb, tc.ns, r.Status.Reason)
		}
	}
	if got := c.Requests()[VerbAccessReview]; got != 3 {
		t.Errorf("counted %d access reviews, want 3", got)
	}
	if got := c.Writes(); got != 0 {
		t.Errorf("access reviews counted as %d writes", got)
	}

	c.Authorize(nil)
	if err := secrets.Delete(ctx, "s", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete with no authorizer: %v", err)
	}
}
