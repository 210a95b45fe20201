package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/kube"
)

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
