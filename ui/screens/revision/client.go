package revision

import (
	"context"

	"github.com/chunkview/chunkview/kube"
)

// client is what the revision screen reads a revision through: the shared
// *kube.Client's details cache.
type client interface {
	Details(ctx context.Context, row kube.RevisionRow) (*kube.Details, error)
}

var _ client = (*kube.Client)(nil)
