package releases

import (
	"context"

	"github.com/chunkview/chunkview/kube"
)

// client is what the releases screen lists through: the shared *kube.Client.
type client interface {
	Releases(ctx context.Context) ([]kube.ReleaseRow, error)
	ReleasesNamed(ctx context.Context, name string) ([]kube.ReleaseRow, error)
}

var _ client = (*kube.Client)(nil)
