package cli

import (
	"context"
	"time"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/owner"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// The commands read and change releases through the interfaces below, declared
// here where they are used, as the TUI's screens declare theirs
// (ui/screens/*/client.go): each holds just the methods its group of commands
// calls. The wiring (run.connect) builds one *kube.Client, which satisfies
// them all, and the kube services made on it (kube.Checker, kube.Inspector) are
// handed over as interfaces too. The live commands (status, logs, drift,
// rollback --wait) read through kube/live's own live.Source.

// readClient is what the read commands (get, inspect, history, diff) read a release
// through: its revisions, the details cache, and its controllers (kube/owner).
type readClient interface {
	owner.Source
	History(ctx context.Context, ns, name string) ([]kube.RevisionRow, error)
	Revision(ctx context.Context, ns, name string, rev int) (kube.RevisionRow, error)
	Details(ctx context.Context, row kube.RevisionRow) (*kube.Details, error)
	FillDetails(ctx context.Context, rows []*kube.RevisionRow) error
	FillApplyMethods(ctx context.Context, rows []*kube.RevisionRow) error
}

// listClient is what ls lists releases through.
type listClient interface {
	owner.Source
	Releases(ctx context.Context) ([]kube.ReleaseRow, error)
	FillSummaries(ctx context.Context, rows []*kube.RevisionRow) error
	FillDetails(ctx context.Context, rows []*kube.RevisionRow) error
	Now() time.Time
	StuckAfter() time.Duration
}

// watchClient is what history --watch follows a release through: the watch,
// a listing again when the watch fell behind, and the details of each
// revision it reports.
type watchClient interface {
	Watch(ctx context.Context, o kube.WatchOptions) <-chan kube.WatchEvent
	History(ctx context.Context, ns, name string) ([]kube.RevisionRow, error)
	FillDetails(ctx context.Context, rows []*kube.RevisionRow) error
}

// operationClient is what the operation commands (rollback, uninstall,
// delete-revision, prune, fix-stuck, fix-apis) read besides their ops.Runner:
// the release's revisions, the details cache, and the configuration their
// advice names.
type operationClient interface {
	Versions(ctx context.Context, ns, name string) ([]kube.RevisionRow, error)
	Details(ctx context.Context, row kube.RevisionRow) (*kube.Details, error)
	Config() kube.Config
	StuckAfter() time.Duration
}

// healthChecker checks the chunk Secrets of revisions (a *kube.Checker).
type healthChecker interface {
	CheckHealth(ctx context.Context, rows []*kube.RevisionRow) error
}

// releaseChecker is what ls checks the releases it lists with (a
// *kube.Checker): the health of their chunk Secrets and, with
// --removed-apis, the APIs their latest revisions use.
type releaseChecker interface {
	healthChecker
	ServedAPIs(ctx context.Context) (*apis.Served, error)
	CheckAPIsOf(ctx context.Context, rows []*kube.RevisionRow, served *apis.Served, opts apis.Options) (map[*kube.RevisionRow]apis.Report, error)
}

// apiChecker is what status checks the APIs of the revision it shows with (a
// *kube.Checker).
type apiChecker interface {
	ServedAPIs(ctx context.Context) (*apis.Served, error)
	CheckAPIs(ctx context.Context, row kube.RevisionRow, served *apis.Served, opts apis.Options) (apis.Report, error)
}

// differ compares two revisions of a release (a *kube.Inspector): diff.
type differ interface {
	Diff(ctx context.Context, ns, name string, from, to int, opts kube.DiffOptions) (*revdiff.Result, error)
}

// layoutReader reads how a revision is stored (a *kube.Inspector): inspect.
type layoutReader interface {
	Layout(ctx context.Context, ns, name string, rev int) (*storage.Layout, error)
}

var (
	_ readClient      = (*kube.Client)(nil)
	_ listClient      = (*kube.Client)(nil)
	_ watchClient     = (*kube.Client)(nil)
	_ operationClient = (*kube.Client)(nil)
	_ healthChecker   = (*kube.Checker)(nil)
	_ layoutReader    = (*kube.Inspector)(nil)
	_ differ          = (*kube.Inspector)(nil)
	_ releaseChecker  = (*kube.Checker)(nil)
	_ apiChecker      = (*kube.Checker)(nil)
)
