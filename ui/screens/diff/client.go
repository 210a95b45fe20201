package diff

import (
	"context"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/revdiff"
)

// client is what the diff screen compares through: the shared *kube.Client's
// revisions, and the live objects (kube/live) for a drift.
type client interface {
	live.Source
	Diff(ctx context.Context, ns, name string, from, to int, opts kube.DiffOptions) (*revdiff.Result, error)
}

var _ client = (*kube.Client)(nil)
