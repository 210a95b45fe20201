package live

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
)

// Source is what live reads through: a *kube.Client, the clients of its live
// objects and the records of its releases. It is declared here, with only the
// methods live calls, so that what the live views need of a connection is
// written down where they use it.
type Source interface {
	// Live returns the clients of the release objects (kube.ErrNoLive on a
	// connection without them).
	Live() (*kube.LiveClients, error)
	// Clientset reads events, Jobs, Pods and their logs.
	Clientset() kubernetes.Interface
	History(ctx context.Context, ns, name string) ([]kube.RevisionRow, error)
	Versions(ctx context.Context, ns, name string) ([]kube.RevisionRow, error)
	Revision(ctx context.Context, ns, name string, rev int) (kube.RevisionRow, error)
	Details(ctx context.Context, row kube.RevisionRow) (*kube.Details, error)
	Decode(ctx context.Context, row kube.RevisionRow) (*release.Release, error)
	// Config says how the connection reads, for the commands live advises
	// (kube.Config.Suggest).
	Config() kube.Config
}

var _ Source = (*kube.Client)(nil)
