package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// FixAPIs is a planned fix of a release that uses Kubernetes APIs the cluster
// no longer serves: a new revision, a copy of the current one with every
// object of its manifest and hooks moved onto the served version that replaces
// its own (apis.PlanFix), every other field kept, Helm 4's included. The
// revision copied is marked superseded, as helm-mapkubeapis does, and the new
// one's description says what changed and warns against rolling back past it.
type FixAPIs struct {
	// Plan is the release as it was when the fix was planned.
	Plan `json:"-"`
	Name string `json:"name"`
	// From is the revision copied: the latest when it is deployed, else the
	// latest deployed (the one Helm's upgrade reads), else the latest.
	From int `json:"from"`
	// Revision is the revision the fix writes: the one after the latest.
	Revision int `json:"revision"`
	// Supersede is set when From is deployed: it is marked superseded.
	Supersede bool `json:"supersede"`
	// DropUnserved drops the objects no served version replaces (with their
	// hook, when a hook holds nothing else); without it the plan fails naming
	// them.
	DropUnserved bool `json:"dropUnserved"`
	// Fix is what the manifest and hooks become, and which objects change.
	Fix apis.Fix `json:"-"`
	// Changes and Dropped name the objects moved and dropped, for -o json.
	Changes []apis.Change `json:"changes"`
	Dropped []apis.Object `json:"dropped,omitempty"`
	// Description is the new revision's, as helm history shows it.
	Description string `json:"description"`
	// Diff is the new revision against From, masked unless planned revealed.
	Diff *revdiff.Result `json:"diff"`
	// Helm is which Helm writes the records, and why.
	HelmChoice

	// served is what the cluster served when the fix was planned: Apply
	// plans the fix again from the record Helm reads, over the same answer.
	served *apis.Served

	// Applied is set once the new revision was written.
	Applied bool `json:"applied"`
}

var _ Operation = (*FixAPIs)(nil)

// Verb is kube.OpFixAPIs.
func (o *FixAPIs) Verb() string { return kube.OpFixAPIs }

// Base is the release the fix was planned from.
func (o *FixAPIs) Base() *Plan { return &o.Plan }

// Helm is the Helm that writes the records.
func (o *FixAPIs) Helm() int { return o.Major }

// ErrNothingToFix is returned by Apply for a plan of a release whose current
// revision uses only APIs the cluster serves.
var ErrNothingToFix = errors.New("nothing to fix: every object uses an API the cluster serves")

// PlanFixAPIs plans the fix of the release of p for the cluster served
// describes (kube.Checker.ServedAPIs). It reads the revision it copies through
// the details cache. A release whose latest revision is in flight, stuck or
// uninstalled is refused; one with nothing unserved gets a plan that changes
// nothing (Fix.Changed is false), which Apply refuses.
func (r *Runner) PlanFixAPIs(ctx context.Context, p *Plan, served *apis.Served, dropUnserved bool, opts kube.DiffOptions) (*FixAPIs, error) {
	latest := p.latest()
	switch {
	case kube.InFlight(latest.Status) && latest.Status != "uninstalling":
		return nil, fmt.Errorf("%w: revision %d of %q is %s: an operation is in flight, or was interrupted (`%s` gets it out); nothing was changed",
			kube.ErrInProgress, latest.Revision, p.Release, latest.Status, r.c.Config().SuggestFor(latest, "fix-stuck"))
	case latest.Status == "uninstalled" || latest.Status == "uninstalling":
		return nil, fmt.Errorf("release %q is %s: there is nothing for Helm to upgrade", p.Release, latest.Status)
	}
	from := current(p)
	rel, err := r.c.Decode(ctx, from)
	if err != nil {
		return nil, err
	}
	fix, err := apis.PlanFix(kube.APIRevision(rel), served, dropUnserved)
	if err != nil {
		return nil, fmt.Errorf("revision %d of %q: %w", from.Revision, p.Release, err)
	}
	o := &FixAPIs{Plan: *p, Name: p.Release, From: from.Revision, Revision: p.Latest + 1, Supersede: from.Status == "deployed",
		DropUnserved: dropUnserved, Fix: fix, Changes: fix.Changes, Dropped: fix.Dropped, served: served}
	o.Description = fixDescription(fix, from.Revision)
	if o.Diff, err = revdiff.Diff(rel, fixedRelease3(rel, fix, o.Revision, o.Description), opts); err != nil {
		return nil, err
	}
	o.Diff.Driver, o.Diff.From, o.Diff.To = p.Driver, o.From, o.Revision
	if o.HelmChoice, err = r.helmFor(ctx, p, from.Revision); err != nil {
		return nil, err
	}
	return o, nil
}

// current is the revision Helm's upgrade reads as the release's current one:
// the latest when deployed, else the latest deployed, else the latest.
func current(p *Plan) kube.RevisionRow {
	for i := len(p.Rows) - 1; i >= 0; i-- {
		if p.Rows[i].Status == "deployed" {
			return p.Rows[i]
		}
	}
	return p.latest()
}

// fixDescription is the new revision's description: what moved, and the
// warning against rolling back past it.
func fixDescription(fix apis.Fix, from int) string {
	moves := map[string]int{}
	for _, c := range fix.Changes {
		moves[c.APIVersion+" → "+c.To.APIVersion]++
	}
	keys := make([]string, 0, len(moves))
	for k := range moves {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys)+1)
	for _, k := range keys {
		parts = append(parts, k)
	}
	if len(fix.Dropped) > 0 {
		refs := make([]string, len(fix.Dropped))
		for i, d := range fix.Dropped {
			refs[i] = d.Ref()
		}
		parts = append(parts, "dropped "+strings.Join(refs, ", "))
	}
	return fmt.Sprintf("Removed Kubernetes APIs replaced by chunkview fix-apis (%s). Do not roll back past this revision: revision %d uses APIs the cluster no longer serves",
		human.FirstLine(strings.Join(parts, "; "), 300), from)
}

// fixedRelease3 is rel as the fix writes it, in Helm 3's types: for the plan's
// diff. Apply writes it through the Helm that runs it, from the record that
// Helm reads.
func fixedRelease3(rel *release.Release, fix apis.Fix, rev int, desc string) *release.Release {
	cp := *rel
	var info release.Info
	if rel.Info != nil {
		info = *rel.Info
	}
	info.Status, info.Description = release.StatusDeployed, desc
	cp.Info, cp.Version, cp.Manifest = &info, rev, fix.Manifest
	cp.Hooks = fixedHooks(rel.Hooks, fix.Hooks, func(h *release.Hook, m string) *release.Hook { c := *h; c.Manifest = m; return &c })
	return &cp
}

// fixedHooks is hooks with each hook's manifest as the fix writes it, and the
// hooks the fix dropped left out, for either Helm's hook type. fixed holds one
// entry per non-nil hook, in order (as kube.APIRevision reads them); nil
// hooks stay where they are.
func fixedHooks[H any](hooks []*H, fixed []apis.FixedHook, with func(*H, string) *H) []*H {
	if len(hooks) == 0 {
		return hooks
	}
	out := make([]*H, 0, len(hooks))
	i := 0
	for _, h := range hooks {
		if h == nil || i >= len(fixed) {
			out = append(out, h)
			continue
		}
		f := fixed[i]
		i++
		if f.Dropped {
			continue
		}
		out = append(out, with(h, f.Manifest))
	}
	return out
}

// Describe says in a sentence what the fix writes, for the plan shown before
// the confirmation.
func (o *FixAPIs) Describe() string {
	if !o.Fix.Changed() {
		return fmt.Sprintf("Revision %d of %s uses only APIs the cluster serves: nothing to fix.", o.From, o.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Writes revision %d, a copy of revision %d with %d object(s) moved to served API versions", o.Revision, o.From, len(o.Fix.Changes))
	if n := len(o.Fix.Dropped); n > 0 {
		fmt.Fprintf(&b, " and %d dropped (no served version replaces them)", n)
	}
	b.WriteString("; every other field is kept")
	if o.Supersede {
		fmt.Fprintf(&b, "; revision %d is marked superseded", o.From)
	}
	fmt.Fprintf(&b, ". No object in the cluster is changed. Runs through %s.", o.HelmChoice.Text())
	return b.String()
}

// run writes the fixed revision through Helm's driver, held to the plan.
func (o *FixAPIs) run(ctx context.Context, r *Runner, h helm) error {
	if !o.Fix.Changed() {
		return refuse(fmt.Errorf("fix-apis of %s: %w", o.Name, ErrNothingToFix))
	}
	if o.served == nil {
		return refuse(fmt.Errorf("fix-apis of %s: the plan holds no discovery answer to apply", o.Name))
	}
	fromRow, err := o.Plan.Row(o.From)
	if err != nil {
		return refuse(err)
	}
	f := fixRevision{
		from: fromRow.Key, to: storage.RecordKey(o.Name, o.Revision), version: o.Revision,
		description: o.Description, supersede: o.Supersede,
		edit: func(rev apis.Revision) (apis.Fix, error) {
			fix, err := apis.PlanFix(rev, o.served, o.DropUnserved)
			if err != nil {
				return fix, refuse(err)
			}
			if !sameFix(fix, o.Fix) {
				return fix, refuse(fmt.Errorf("%w: revision %d as Helm %d reads it does not fix to what the plan showed; nothing was changed", kube.ErrChanged, o.From, h.major()))
			}
			return fix, nil
		},
	}
	if err := h.fixAPIs(f); err != nil {
		return err
	}
	o.Applied = true
	return nil
}

// sameFix says whether two fixes write the same manifest and hooks.
func sameFix(a, b apis.Fix) bool {
	return a.Manifest == b.Manifest && slices.Equal(a.Hooks, b.Hooks)
}
