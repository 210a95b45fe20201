package ops

import (
	"context"
	"errors"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/chunkview/chunkview/kube"
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

// Review asks the API server whether the user of cs may do each of need, with
// one SelfSubjectAccessReview per access, a few at a time. Reviews that fail
// are missing from the answers, and their errors are joined in the error
// returned.
func Review(ctx context.Context, cs kubernetes.Interface, need []Access) (map[Access]Verdict, error) {
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
			got, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, kube.Explain(err, "create", "selfsubjectaccessreviews", ""))
				return
			}
			out[a] = Verdict{Allowed: got.Status.Allowed && !got.Status.Denied, Reason: got.Status.Reason}
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}
