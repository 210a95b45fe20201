package ops

import (
	"context"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
)

// Runner plans and applies operations on the cluster of one connection. It reads
// through the connection (its details cache included) and writes through Helm's
// own actions and drivers, of the Helm that wrote the release.
type Runner struct {
	c *kube.Client
	// rules are the permission rules read of each namespace, for a while (see
	// Review): an operation's plan and its apply ask once.
	rules *rulesCache
	// fresh starts the operation's one discovery pass (see discovery).
	fresh sync.Once
}

// discovery starts the runner's one pass of discovery, at its first reader:
// the controller checks of the plan and of the apply, the removed-APIs check
// and Helm's kube clients then read what the cluster serves once between them,
// and afresh for each runner (one per operation), although the connection
// lasts (the TUI's).
func (r *Runner) discovery() { r.fresh.Do(r.c.FreshDiscovery) }

// ServedAPIs is the connection's ServedAPIs, read in the runner's discovery
// pass.
func (r *Runner) ServedAPIs(ctx context.Context) (*apis.Served, error) {
	r.discovery()
	return kube.NewChecker(r.c).ServedAPIs(ctx)
}

// NewRunner returns the runner of operations over connection c. It holds no
// state but the permission rules it read (see Review): making one per operation
// costs nothing, and one operation's plan and apply share them.
func NewRunner(c *kube.Client) *Runner {
	r := &Runner{c: c}
	r.rules = newRulesCache(r)
	return r
}

// Client returns the connection the runner reads and writes through.
func (r *Runner) Client() *kube.Client { return r.c }

// refusal is an error an operation returns before it changed anything: Apply
// hands it back as it is.
type refusal struct{ error }

func (e refusal) Unwrap() error { return e.error }

// refuse marks err as a refusal made before anything changed.
func refuse(err error) error {
	if err == nil {
		return nil
	}
	return refusal{err}
}

// newRulesCache returns the rules cache of a runner over r's connection.
func newRulesCache(r *Runner) *rulesCache {
	return &rulesCache{now: time.Now, fetch: func(ctx context.Context, ns string) (*authorizationv1.SubjectRulesReviewStatus, error) {
		review := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}
		got, err := r.c.Clientset().AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		return &got.Status, nil
	}}
}

// checkWritable refuses what, naming it, when connection c is read-only.
func checkWritable(c *kube.Client, what string) error {
	if c.ReadOnly() {
		return kube.ReadOnlyError(what)
	}
	return nil
}
