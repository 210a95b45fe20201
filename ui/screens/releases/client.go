package releases

import (
	"context"

	"github.com/chunkview/chunkview/kube"
)

// client is what the releases screen lists through: the shared *kube.Client,
// and the cluster's namespaces for the namespace picker.
type client interface {
	Releases(ctx context.Context) ([]kube.ReleaseRow, error)
	ReleasesNamed(ctx context.Context, name string) ([]kube.ReleaseRow, error)
	Namespaces(ctx context.Context) ([]string, error)
}

var _ client = (*kube.Client)(nil)
