package ops

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/resource"

	"github.com/chunkview/chunkview/kube"
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

// open returns the Helm of the given major over plan p's store: its driver held
// to the plan when pinned, else a driver of the store as it is now (for what an
// operation does after Helm's action, on records the plan cannot know).
func (r *Runner) open(ctx context.Context, p *Plan, major int, pinned bool) (helm, error) {
	env := helmEnv{ctx: ctx, r: r, p: p, pinned: pinned, resNS: r.resourceNamespace(ctx, p.latest()), log: &helmLog{}, carry: newCarrier(p)}
	if major == 4 {
		return newHelm4(env)
	}
	return newHelm3(env)
}

// helmEnv is what building either Helm needs.
type helmEnv struct {
	ctx    context.Context
	r      *Runner
	p      *Plan
	pinned bool
	// resNS is the namespace the release's resources live in.
	resNS string
	log   *helmLog
	// carry keeps other writers' metadata on the records the drivers write
	// (see carrier).
	carry *carrier
}

// resourceNamespace returns the namespace a release's resources live in.
func (r *Runner) resourceNamespace(ctx context.Context, row kube.RevisionRow) string {
	if row.Summary.Namespace != "" && !row.NamespaceUnknown {
		return row.Summary.Namespace
	}
	if d, err := r.c.Details(ctx, row); err == nil && d.Release != nil && d.Release.Namespace != "" {
		return d.Release.Namespace
	}
	return row.StorageNamespace
}

// HelmChoice is which Helm runs an operation, and why.
type HelmChoice struct {
	// Major is 3 or 4.
	Major int `json:"helm"`
	// Reason says why, for the plan a person confirms.
	Reason string `json:"helmReason"`
}

// Text names the Helm that runs the operation and why: "Helm 4: ...". (Not
// String: the choice is embedded in every operation, which fmt would then print
// as the choice alone.)
func (h HelmChoice) Text() string { return fmt.Sprintf("Helm %d (%s)", h.Major, h.Reason) }

// helmFor decides which Helm runs an operation that reads and rewrites (or
// copies into a new revision) the records of revs: Helm 4 when any of them was
// written by Helm 4, whose fields (apply_method, info.rollback_revision, the
// chart's mod times) Helm 3's types would drop; Helm 3 otherwise, so that a
// release only Helm 3 wrote comes out exactly as Helm 3 writes it (Helm 4's
// actions add fields of their own: see README, "Helm 3 and Helm 4"). The
// revisions are decoded through the details cache; one that cannot be read
// decides nothing.
func (r *Runner) helmFor(ctx context.Context, p *Plan, revs ...int) (HelmChoice, error) {
	var newer []string
	for _, rev := range revs {
		row, err := p.Row(rev)
		if err != nil {
			return HelmChoice{}, err
		}
		d, err := r.c.Details(ctx, row)
		if err != nil {
			return HelmChoice{}, err
		}
		if len(d.Row.UnknownFields) > 0 {
			newer = append(newer, fmt.Sprintf("revision %d (%s)", rev, strings.Join(d.Row.UnknownFields, ", ")))
		}
	}
	if len(newer) > 0 {
		return HelmChoice{Major: 4, Reason: "Helm 4 wrote " + strings.Join(newer, " and ") + "; Helm 4's actions keep those fields"}, nil
	}
	return HelmChoice{Major: 3, Reason: "Helm 3 wrote the revisions it rewrites"}, nil
}
