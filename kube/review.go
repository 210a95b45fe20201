package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Access is one verb on one resource in one namespace ("" at the cluster scope).
type Access struct {
	Verb      string
	Resource  schema.GroupResource
	Namespace string
}

// Verdict is the authorizer's answer to one access review.
type Verdict struct {
	Allowed bool
	Reason  string
}

// Review asks the API server whether the connection's user may do each of need,
// with one SelfSubjectAccessReview per access, a few at a time. Reviews that fail
// are missing from the answers, and their errors are joined in the error returned.
func (c *Client) Review(ctx context.Context, need []Access) (map[Access]Verdict, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		out  = map[Access]Verdict{}
		errs []error
	)
	sem := make(chan struct{}, 8)
	for _, a := range need {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: a.Namespace, Verb: a.Verb, Group: a.Resource.Group, Resource: a.Resource.Resource},
			}}
			got, err := c.cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, Explain(err, "create", "selfsubjectaccessreviews", ""))
				return
			}
			out[a] = Verdict{Allowed: got.Status.Allowed && !got.Status.Denied, Reason: got.Status.Reason}
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// checkWritable refuses what under --read-only.
func (c *Client) checkWritable(what string) error {
	if c.cfg.ReadOnly {
		return fmt.Errorf("%w: %s is disabled (started with --read-only)", ErrReadOnly, what)
	}
	return nil
}

// CheckWritable refuses what, naming it, when the connection is read-only.
func (c *Client) CheckWritable(what string) error { return c.checkWritable(what) }

// firstLine returns s up to its first newline, at most n bytes.
func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
