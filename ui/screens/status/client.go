package status

import (
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
)

// client is what the status screen reads and follows a release's objects
// through: the shared *kube.Client, as kube/live reads it.
type client interface {
	live.Source
}

var _ client = (*kube.Client)(nil)
