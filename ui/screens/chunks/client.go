package chunks

import (
	"context"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// client is what the chunks screen reads a revision's layout through: a
// *kube.Inspector on the shared client, in two steps (see
// kube.Inspector.LayoutSecrets).
type client interface {
	LayoutSecrets(ctx context.Context, ns, name string, rev int) (*storage.Layout, kube.RevisionRow, error)
	MeasureLayout(ctx context.Context, row kube.RevisionRow, l *storage.Layout) (*storage.Layout, error)
}

var _ client = (*kube.Inspector)(nil)
