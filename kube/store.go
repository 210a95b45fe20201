package kube

import (
	"context"

	"github.com/chunkview/chunkview/storage"
)

// store is one place release records are kept. Each has its own file, as Helm has
// one per driver: store_chunked.go and store_helm.go.
type store interface {
	// name is the store's DriverX constant.
	name() string
	// releases lists the latest revision of every release the configuration
	// looks at (of those called name, when set), with the number of revisions of
	// each. With light it reads metadata only. An error wrapping ErrPartial comes
	// with the rows of the namespaces it could read.
	releases(ctx context.Context, name string, light bool) ([]ReleaseRow, error)
	// history lists the revisions of one release in storage namespace sns;
	// none is not an error. With light it reads metadata only: name, revision,
	// status and resourceVersion, all a plan's check needs.
	history(ctx context.Context, sns, name string, light bool) ([]RevisionRow, error)
	// details decodes one revision; keep says whether the result may be cached
	// (Client.Details caches).
	details(ctx context.Context, row RevisionRow) (d *Details, keep bool, err error)
	// layout inspects how one revision is stored.
	layout(ctx context.Context, row RevisionRow) (*storage.Layout, error)
	// limit is the most one revision may take in this store, in stored bytes.
	limit() int64
	// resource is the API resource of the store's records.
	resource() string
}
