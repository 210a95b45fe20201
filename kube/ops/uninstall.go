package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// Uninstall is a planned uninstall: the release's revisions, whether their records
// are kept, what Helm will delete, and the Helm that runs it.
type Uninstall struct {
	// Plan is the release as it was when the uninstall was planned.
	Plan `json:"-"`
	// KeepHistory keeps the records, marked uninstalled.
	KeepHistory bool `json:"keepHistory"`
	// Deletes are the objects of the latest revision Helm deletes ("Kind/ns/name"),
	// Keeps those it leaves (helm.sh/resource-policy: keep). Hooks are not listed:
	// Helm runs the delete hooks and removes hook objects by their own policies.
	Deletes []string `json:"deletes"`
	Keeps   []string `json:"keeps,omitempty"`
	// Records are the revision records that go (none with KeepHistory).
	Records []int `json:"records"`
	// Helm is which Helm runs the uninstall, and why.
	HelmChoice
}

var _ Operation = (*Uninstall)(nil)

// Verb is kube.OpUninstall.
func (o *Uninstall) Verb() string { return kube.OpUninstall }

// Base is the release the uninstall was planned from.
func (o *Uninstall) Base() *Plan { return &o.Plan }

// Helm is the Helm that runs the uninstall.
func (o *Uninstall) Helm() int { return o.Major }

// PlanUninstall returns the plan of uninstalling the release of p: its resources
// and, unless keepHistory, all its revision records. Helm rewrites the latest
// revision (uninstalling) before it deletes anything, with or without
// keepHistory, so that revision decides which Helm runs it.
func (r *Runner) PlanUninstall(ctx context.Context, p *Plan, keepHistory bool) (*Uninstall, error) {
	o := &Uninstall{Plan: *p, KeepHistory: keepHistory}
	latest := p.latest()
	if latest.Status != "uninstalled" {
		if rls, err := r.c.Decode(ctx, latest); err == nil {
			for _, res := range revdiff.ReleaseResources(rls.Manifest, rls.Namespace) {
				id := res.Kind + "/" + res.Name
				if res.Namespace != "" {
					id = res.Kind + "/" + res.Namespace + "/" + res.Name
				}
				if strings.Contains(res.Manifest, "helm.sh/resource-policy: keep") {
					o.Keeps = append(o.Keeps, id)
				} else {
					o.Deletes = append(o.Deletes, id)
				}
			}
		}
	}
	if !keepHistory {
		for _, row := range p.Rows {
			o.Records = append(o.Records, row.Revision)
		}
	}
	var err error
	if o.HelmChoice, err = r.helmFor(ctx, p, p.Latest); err != nil {
		return nil, err
	}
	return o, nil
}

// Describe says in a sentence what the uninstall does.
func (o *Uninstall) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Helm uninstalls %s: it runs its delete hooks and deletes %d object(s)", o.Release, len(o.Deletes))
	if len(o.Keeps) > 0 {
		fmt.Fprintf(&b, " (it keeps %d marked helm.sh/resource-policy: keep)", len(o.Keeps))
	}
	if o.KeepHistory {
		b.WriteString("; the revision records are kept, the latest marked uninstalled.")
	} else {
		fmt.Fprintf(&b, ", then all %d revision records. This cannot be undone.", len(o.Records))
	}
	fmt.Fprintf(&b, " Runs through %s.", o.HelmChoice.Text())
	return b.String()
}

// run uninstalls the release with Helm's own uninstall action.
// listsFirst: Helm's uninstall reads the history before it writes.
func (o *Uninstall) listsFirst() bool { return true }

func (o *Uninstall) run(ctx context.Context, r *Runner, h helm) error {
	p := &o.Plan
	latest := p.latest()
	// A release already uninstalled with its history kept has no resources left
	// for Helm to delete: only its records go.
	if latest.Status != "uninstalled" {
		if rls, err := r.c.Decode(ctx, latest); err == nil {
			if err := r.checkResources(ctx, "uninstall", h, rls.Manifest, ""); err != nil {
				return refuse(err)
			}
		}
	}
	// Helm's uninstall logs a failed write of the release's status and goes on
	// to delete its resources: the guard stops it there when that failure was the
	// release moving on.
	err := h.uninstall(p.Release, o.KeepHistory)
	if err == nil && h.track().conflicted() {
		err = fmt.Errorf("%w: the release changed while it was being uninstalled", storage.ErrConflict)
	}
	return err
}
