package ops

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	driver "helm.sh/helm/v3/pkg/storage/driver"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// unfinishedWrite explains an operation on plan p that failed to create a
// revision (err is Helm's ErrReleaseExists) because that revision's pending
// index is there: the index Secret a create writes first, left by a create
// under way, or one cut short moments ago (a killed chunkview, a lost
// connection). The listing leaves such an index out until it is older than
// storage.PendingLease, so the plan could not show it, and no other writer has
// stored the revision: the message says so, names the Secret and when a retry
// takes it over. It returns nil for any other failure, and when no pending index
// of the release is found (one list of the storage namespace's metadata, made
// only on this failure).
func (r *Runner) unfinishedWrite(ctx context.Context, verb string, p *Plan, h helm, err error) error {
	if p.Driver != kube.DriverChunked || !(errors.Is(err, driver.ErrReleaseExists) || errors.Is(err, driver4.ErrReleaseExists)) {
		return nil
	}
	sel := labels.Set{storage.LabelOwner: r.c.Config().Owner, storage.LabelName: p.Release, storage.LabelType: storage.TypePending}
	list, lerr := r.c.Clientset().CoreV1().Secrets(p.StorageNamespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if lerr != nil {
		return nil
	}
	var pending *metav1.ObjectMeta
	rev := 0
	for i := range list.Items {
		m := &list.Items[i].ObjectMeta
		if n, convErr := strconv.Atoi(m.Labels[storage.LabelVersion]); convErr == nil && n > rev {
			pending, rev = m, n
		}
	}
	if pending == nil {
		return nil
	}
	age := max(r.c.Now().Sub(pending.CreationTimestamp.Time), 0)
	wait := max(storage.PendingLease-age, 0).Round(time.Second) + time.Second
	return fmt.Errorf("%s of %s stopped: %w: revision %d is being written, or its write was cut short moments ago: the unfinished write's pending index Secret %s/%s, written %s ago, holds that revision. %s. "+
		"Once it is %s old a create takes it over: retry in %s (if another chunkview or operator is writing it, look at the history again first), or see it with `%s`: %w",
		verb, p.Release, kube.ErrChanged, rev, pending.Namespace, pending.Name, age.Round(time.Second), h.track().done(),
		storage.PendingLease, wait, r.c.Config().SuggestFor(p.latest(), "verify"), err)
}
