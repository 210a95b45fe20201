package kubetest

import (
	"context"
	"errors"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
)

// Decode decodes revision rev of release name (0: the latest), looked up in
// namespace ns as History looks it up: the revision's row, then its record.
func Decode(ctx context.Context, c *kube.Client, ns, name string, rev int) (*release.Release, error) {
	row, err := c.Revision(ctx, ns, name, rev)
	if err != nil {
		return nil, err
	}
	return c.Decode(ctx, row)
}

// GC is the CLI's gc over c: it finds the leftovers in view (FindLeftovers, with
// the default age) and, unless dryRun, removes them (RemoveLeftovers). It returns
// what was found, how many went, and a *kube.PartialError from the finding when
// the rest succeeded.
func GC(ctx context.Context, c *kube.Client, dryRun bool) ([]kube.NamespaceReport, int, error) {
	reps, err := kube.NewChecker(c).FindLeftovers(ctx, 0)
	if err != nil && !errors.Is(err, kube.ErrPartial) {
		return reps, 0, err
	}
	if dryRun {
		return reps, 0, err
	}
	removed, rerr := kube.NewChecker(c).RemoveLeftovers(ctx, reps)
	if rerr != nil {
		return reps, removed, rerr
	}
	return reps, removed, err
}
