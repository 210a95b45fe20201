package diff

import (
	"context"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// differ is what the diff screen compares two revisions through (a
// *kube.Inspector on the shared client); a drift reads the live objects
// through kube/live's Source instead.
type differ interface {
	Diff(ctx context.Context, ns, name string, from, to int, opts kube.DiffOptions) (*revdiff.Result, error)
}

var _ differ = (*kube.Inspector)(nil)
