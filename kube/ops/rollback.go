package ops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/storage/driver"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// Rollback is a planned rollback: the revision it starts from, the one it
// restores, the changes between them, what happens to revisions that cannot be
// read, and the Helm that runs it, with the release it was planned from.
type Rollback struct {
	// Plan is the release as it was when the rollback was planned.
	Plan `json:"-"`
	Name string `json:"name"`
	// From is the latest revision Helm will read: the latest that can be read.
	From int `json:"from"`
	// To is the revision whose content is applied again.
	To int `json:"to"`
	// Diff is what the rollback changes in the records: From against To.
	Diff *revdiff.Result `json:"diff"`
	// Reapply is set when To is the latest revision: the rollback applies its
	// objects again as recorded, which undoes drift, and records that as a new
	// revision, as `helm rollback NAME N` does.
	Reapply bool `json:"reapply,omitempty"`
	// Drop are the revisions above To whose records cannot be read, latest
	// first: Helm cannot read them, and would try to write the next revision
	// under the latest one's key, so the rollback deletes their records first.
	Drop []Dropped `json:"drop,omitempty"`
	// Helm is which Helm runs the rollback, and why.
	HelmChoice
	// ServerSide, set when Helm 4 applies the objects server-side, is the
	// field manager they are applied under and the conflicts found.
	ServerSide *ServerSide `json:"serverSide,omitempty"`
	// ForceConflicts takes over the fields ServerSide found conflicting, as
	// Helm 4's --force-conflicts does; without it such a rollback is refused.
	// Set it before Apply.
	ForceConflicts bool `json:"-"`
	// Wait waits, up to Timeout, for the objects rolled back to be ready, as
	// Helm's --wait does. Set them before Apply.
	Wait    bool          `json:"-"`
	Timeout time.Duration `json:"-"`

	// Applied is set once the rollback ran; NewRevision is the revision it
	// created.
	Applied     bool `json:"applied"`
	NewRevision int  `json:"newRevision,omitempty"`
}

// Dropped is a revision record an operation deletes because it cannot be read.
type Dropped struct {
	Revision int    `json:"revision"`
	Key      string `json:"key"`
	// Problem is why it cannot be read.
	Problem string `json:"problem"`
}

var _ Operation = (*Rollback)(nil)

// Verb is kube.OpRollback.
func (o *Rollback) Verb() string { return kube.OpRollback }

// Base is the release the rollback was planned from.
func (o *Rollback) Base() *Plan { return &o.Plan }

// Helm is the Helm that runs the rollback.
func (o *Rollback) Helm() int { return o.Major }

// diff compares revision from, decoded by then (through the details cache), with
// revision to; from's error first, as kube.Inspector.Diff does.
func (r *Runner) diff(ctx context.Context, from, to kube.RevisionRow, opts kube.DiffOptions) (*revdiff.Result, error) {
	a, err := r.c.Decode(ctx, from)
	if err != nil {
		return nil, err
	}
	b, err := r.c.Decode(ctx, to)
	if err != nil {
		return nil, err
	}
	return revdiff.Diff(a, b, opts)
}

// PlanRollback returns what rolling the release of p back to revision rev (0: the
// one before the latest) would do, without changing anything. rev may be the
// latest revision: the rollback then applies it again. Revisions above rev whose
// records cannot be read are deleted first (Drop), which the plan says; the
// revision rolled back to must be readable. Its diff summarises values longer than
// opts.SummarizeOver (by default revdiff.PlanSummarizeOver; negative: none). The
// revisions are decoded through the
// details cache, so a plan made from the rows a screen shows reads no more than
// their records.
func (r *Runner) PlanRollback(ctx context.Context, p *Plan, rev int, opts kube.DiffOptions) (*Rollback, error) {
	if rev == 0 {
		if len(p.Rows) < 2 {
			return nil, fmt.Errorf("release %q has only revision %d: nothing to roll back to; name it to apply it again (`%s`)", p.Release, p.Latest, r.c.Config().SuggestFor(p.latest(), "rollback", fmt.Sprint(p.Latest)))
		}
		rev = p.Rows[len(p.Rows)-2].Revision
	}
	toRow, err := p.Row(rev)
	if err != nil {
		return nil, err
	}
	o := &Rollback{Plan: *p, Name: p.Release, To: rev}
	// The plan compares the latest revision with rev: both records in one
	// read where the store allows (Helm's, by their version labels). A
	// failure here is met again, and reported, by the reads below.
	_ = r.c.PrefetchTogether(ctx, p.latest(), toRow)
	// The latest revisions that cannot be read, down to the one rolled back to.
	from := kube.RevisionRow{}
	for i := len(p.Rows) - 1; i >= 0; i-- {
		row := p.Rows[i]
		if row.Revision < rev {
			break
		}
		d, err := r.c.Details(ctx, row)
		if err != nil {
			return nil, err
		}
		if d.Release != nil {
			from = row
			break
		}
		if row.Revision == rev {
			return nil, fmt.Errorf("revision %d of %q cannot be read, so it cannot be rolled back to: %s", rev, p.Release, d.Row.Problem)
		}
		o.Drop = append(o.Drop, Dropped{Revision: row.Revision, Key: row.Key, Problem: d.Row.Problem})
	}
	o.From, o.Reapply = from.Revision, from.Revision == rev && len(o.Drop) == 0
	if opts.SummarizeOver == 0 {
		// A plan is read before a question: a value of megabytes shows as
		// its size and hash (`chunkview diff` shows it whole).
		opts.SummarizeOver = revdiff.PlanSummarizeOver
	}
	o.Diff, err = r.diff(ctx, from, toRow, opts)
	if err != nil {
		return nil, err
	}
	// Helm rewrites the latest revision it reads and every deployed one (as
	// superseded), and copies the one rolled back to.
	revs := []int{o.From, o.To}
	for _, row := range p.Rows {
		if row.Status == "deployed" && row.Revision != o.From && row.Revision != o.To {
			revs = append(revs, row.Revision)
		}
	}
	if o.HelmChoice, err = r.helmFor(ctx, p, revs...); err != nil {
		return nil, err
	}
	if to, err := r.c.Decode(ctx, toRow); err == nil {
		o.ServerSide = r.planServerSide(ctx, p, o.Major, toRow, to.Manifest)
	}
	return o, nil
}

// Describe says in a sentence what the rollback does, for the plan shown before
// the confirmation.
func (o *Rollback) Describe() string {
	var b strings.Builder
	for _, d := range o.Drop {
		fmt.Fprintf(&b, "Revision %d cannot be read (%s): its record is deleted first. ", d.Revision, d.Problem)
	}
	next := o.From + 1
	switch {
	case o.Reapply:
		fmt.Fprintf(&b, "Revision %d is the latest: its objects are applied again as recorded (undoing any drift), recorded as revision %d.", o.To, next)
	case o.From == o.To:
		fmt.Fprintf(&b, "Revision %d is then the latest: its objects are applied again as recorded, recorded as revision %d.", o.To, next)
	default:
		fmt.Fprintf(&b, "From revision %d to the content of revision %d, recorded as revision %d.", o.From, o.To, next)
	}
	fmt.Fprintf(&b, " Runs through %s.", o.HelmChoice.Text())
	if o.ServerSide != nil {
		b.WriteString(" " + o.ServerSide.Text())
	}
	return b.String()
}

// run rolls the release back with Helm's own rollback action.
func (o *Rollback) run(ctx context.Context, r *Runner, h helm) error {
	p := &o.Plan
	fromRow, err := p.Row(o.From)
	if err != nil {
		return refuse(err)
	}
	if ss := o.ServerSide; ss != nil && len(ss.Conflicts) > 0 && !o.ForceConflicts {
		return refuse(fmt.Errorf("%w: rollback of %s refused: applied as field manager %q, it would change %s owned by another manager: %s. Nothing was changed: pass --force-conflicts to take them over, or --field-manager to apply as their manager",
			ErrFieldConflicts, p.Release, ss.Manager, human.Plural(len(ss.Conflicts), "field", "fields"), ss.ConflictList()))
	}
	if err := r.refuseInFlight(ctx, fromRow); err != nil {
		return refuse(err)
	}
	// Both revisions were decoded for the plan; the details cache has them.
	if from, err := r.c.Decode(ctx, fromRow); err == nil {
		if toRow, err := p.Row(o.To); err == nil {
			if to, err := r.c.Decode(ctx, toRow); err == nil {
				if err := r.checkResources(ctx, "rollback", h, from.Manifest, to.Manifest); err != nil {
					return refuse(err)
				}
			}
		}
	}
	for _, d := range o.Drop {
		if err := h.forceDelete(d.Key); err != nil {
			return err
		}
	}
	wo := waitOptions{wait: o.Wait, timeout: o.Timeout}
	if o.ServerSide != nil {
		wo.manager, wo.forceConflicts = o.ServerSide.Manager, o.ForceConflicts
	}
	err = h.rollback(p.Release, o.To, wo)
	t := h.track()
	if err == nil && t.conflicted() {
		// Helm went on past a write the store refused as a conflict.
		err = fmt.Errorf("%w: the release changed while it was being rolled back", storage.ErrConflict)
	}
	next := o.From + 1
	if err != nil {
		// The revision Helm created is left pending-rollback when it stopped
		// after creating it, a conflict included: mark it failed, or the next
		// rollback would wait for it as for an operation in flight. One another
		// writer stored first (ErrReleaseExists) is not ours.
		if t.wasCreated(storage.RecordKey(p.Release, next)) || (!errors.Is(err, kube.ErrInProgress) && !errors.Is(err, driver.ErrReleaseExists) && !errors.Is(err, driver4.ErrReleaseExists) && !isConflict(err)) {
			r.markAbandoned(ctx, p, h.major(), next, o.To, err)
		}
		return err
	}
	o.Applied, o.NewRevision = true, next
	if err := supersedeOlder(h, p, storage.RecordKey(p.Release, next)); err != nil {
		return fmt.Errorf("rolled back, but an older revision is still marked deployed and could not be marked superseded: %w", err)
	}
	return nil
}

// listsFirst: Helm's rollback reads the history (Last, History) before it
// writes, unless unreadable records are deleted first.
func (o *Rollback) listsFirst() bool { return len(o.Drop) == 0 }

// refuseInFlight refuses to roll back over a latest revision that turned
// pending moments ago: Helm's rollback, unlike its upgrade, goes ahead when the
// latest revision is pending, so that a stuck release can be rolled back, but one
// that has just turned pending is an operation in flight, and rolling back over
// it would leave two revisions deployed. The driver under Helm is held to the
// plan, so the latest revision Helm reads is row.
func (r *Runner) refuseInFlight(ctx context.Context, row kube.RevisionRow) error {
	if !kube.Pending(row.Status) {
		return nil
	}
	since := r.pendingFor(ctx, row)
	if since >= r.c.StuckAfter() {
		return nil
	}
	return fmt.Errorf("%w: revision %d of %q has been %s for %s; nothing was changed: wait for that operation to finish and retry (if it was interrupted, for example by a lost connection, `%s` gets it out)",
		kube.ErrInProgress, row.Revision, row.Name, row.Status, since.Round(time.Second), r.c.Config().SuggestFor(row, "fix-stuck", "--mark-failed"))
}

// pendingFor is how long revision row has been in its state: since Helm last
// wrote it (info.last_deployed), else since its record was written.
func (r *Runner) pendingFor(ctx context.Context, row kube.RevisionRow) time.Duration {
	at := row.Updated
	if d, err := r.c.Details(ctx, row); err == nil && d.Release != nil && d.Release.Info != nil && !d.Release.Info.LastDeployed.IsZero() {
		at = d.Release.Info.LastDeployed.Time
	}
	return r.c.Now().Sub(at)
}

// markAbandoned marks failed the revision a failed rollback left pending-rollback,
// as Helm does when it gets the chance: when the request that created it failed
// after being applied, or when the write of its failure failed too, Helm leaves it
// pending, and the next rollback would take it for an operation in flight. Best
// effort: when the cluster cannot be reached now, fix-stuck does it later. The
// operation's own driver may not know that revision (its create failed), so a
// driver of its own reads it and writes it back: a change another writer makes in
// between is a conflict, and the revision is left alone.
func (r *Runner) markAbandoned(ctx context.Context, p *Plan, major, rev, to int, cause error) {
	h, err := r.open(ctx, p, major, false)
	if err != nil {
		return
	}
	key := storage.RecordKey(p.Release, rev)
	st, desc, err := h.status(key)
	// Helm's own description of the revision it created; anything else is another
	// operation's.
	if err != nil || st != "pending-rollback" || desc != fmt.Sprintf("Rollback to %d", to) {
		return
	}
	_ = h.setStatus(key, "failed", "Rollback failed: "+human.FirstLine(cause.Error(), 200), false)
}

// supersedeOlder marks superseded every revision the plan saw deployed that the
// rollback did not supersede itself. Helm's rollback logs and ignores a failed
// write of the previous revisions' new status, which leaves two revisions
// deployed; this finishes its job through the operation's own driver, from what
// the plan and the operation's own writes say (no listing). A revision that
// changed meanwhile (a conflict) is left to whoever changed it.
func supersedeOlder(h helm, p *Plan, created string) error {
	t := h.track()
	for _, row := range p.Rows {
		if row.Status != "deployed" || row.Key == created {
			continue
		}
		if st, ok := t.statusWritten(row.Key); ok && st != "deployed" {
			continue
		}
		_, desc, err := h.status(row.Key)
		if isConflict(err) || notFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := h.setStatus(row.Key, "superseded", desc, false); err != nil && !isConflict(err) {
			return err
		}
	}
	return nil
}
