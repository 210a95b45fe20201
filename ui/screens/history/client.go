package history

import (
	"context"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/owner"
)

// client is what the history screen reads through: the shared *kube.Client's
// history and details cache, and the controllers (kube/owner) of the release.
type client interface {
	owner.Source
	History(ctx context.Context, ns, name string) ([]kube.RevisionRow, error)
	Prefetch(ctx context.Context, rows ...kube.RevisionRow) error
}

var _ client = (*kube.Client)(nil)
