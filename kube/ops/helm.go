package ops

import (
	"time"

	"k8s.io/cli-runtime/pkg/resource"

	"github.com/chunkview/chunkview/kube/apis"
)

// helm is one Helm major under an operation: its actions, its driver over the
// plan's store (held to the plan's records, or not, see Runner.open) and its kube
// client. It is the one seam between the operations and Helm 3 or Helm 4; the
// operations themselves do not know which runs them.
type helm interface {
	// major is 3 or 4.
	major() int
	// track is what the operation did through this Helm so far.
	track() *tracker
	// explain adds to err what Helm logged about it.
	explain(err error) error
	// build parses a manifest into the resources Helm would apply, for the
	// permission check.
	build(manifest string) ([]*resource.Info, error)
	// rollback runs Helm's rollback of release name to revision to.
	rollback(name string, to int, o waitOptions) error
	// uninstall runs Helm's uninstall of release name.
	uninstall(name string, keepHistory bool) error
	// status reads the status and description of the record of key.
	status(key string) (status, description string, err error)
	// setStatus rewrites the record of key with a new status and description,
	// its other fields kept as they are; stamp also sets its last deployed time
	// to now, as Helm does when it changes a release's status itself.
	setStatus(key, status, description string, stamp bool) error
	// delete deletes the record of key through Helm's driver (it decodes the
	// record first, as Helm's drivers do).
	delete(key string) error
	// forceDelete deletes the record of key without reading it.
	forceDelete(key string) error
	// fixAPIs creates the record f.to, a copy of the record f.from with its
	// manifest and hooks as f.edit fixes them, then marks f.from superseded
	// when f.supersede (see FixAPIs).
	fixAPIs(f fixRevision) error
}

// waitOptions say whether and how long an action waits for the resources it
// applied to be ready, and, for Helm 4's server-side apply, under which field
// manager it applies them ("": Helm's) and whether it forces conflicts.
type waitOptions struct {
	wait           bool
	timeout        time.Duration
	manager        string
	forceConflicts bool
}

// defaultTimeout is Helm's CLIs' --timeout: how long one Kubernetes operation
// (a hook's Job, a wait) may take.
const defaultTimeout = 5 * time.Minute

// fixRevision is what the Helm seam needs to write the fix: the record copied,
// the one created, and the fix planned again from the record as that Helm
// reads it.
type fixRevision struct {
	from, to    string
	version     int
	description string
	supersede   bool
	// edit plans the fix of the record copied, as the Helm that runs it read
	// it; it fails when that is not the fix the person confirmed.
	edit func(apis.Revision) (apis.Fix, error)
}
