package ops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	driver "helm.sh/helm/v3/pkg/storage/driver"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/kube"
)

// Apply applies op as it was planned. It refuses, changing nothing, under
// --read-only and when the release is no longer as planned (the error wraps
// kube.ErrChanged); a change that lands while Helm runs stops the operation at
// its next read or write of the records, and from then on no resource is changed:
// the error says what had been done by then.
func (r *Runner) Apply(ctx context.Context, op Operation) error {
	verb := op.Verb()
	if err := checkWritable(r.c, verb); err != nil {
		return err
	}
	p := op.Base()
	if p == nil || len(p.Rows) == 0 {
		return fmt.Errorf("%s: no plan to apply", verb)
	}
	// An operation whose first read of the records is Helm's listing of
	// them, held to the plan (see heldByHelmListing), is checked by that
	// listing: the metadata list is made only when it refused, for the
	// refusal's words.
	deferCheck := heldByHelmListing(op, p)
	if !deferCheck {
		if err := r.check(ctx, verb, p); err != nil {
			return err
		}
	}
	r.discovery()
	if err := r.CheckController(ctx, op); err != nil {
		return err
	}
	h, err := r.open(ctx, p, op.Helm(), true)
	if err != nil {
		return err
	}
	if err := op.run(ctx, r, h); err != nil {
		if t := h.track(); deferCheck && t.conflicted() && t.untouched() {
			if cerr := r.check(ctx, verb, p); cerr != nil {
				return cerr
			}
		}
		if uerr := r.unfinishedWrite(ctx, verb, p, h, err); uerr != nil {
			return uerr
		}
		return r.explain(verb, p, h, err)
	}
	return nil
}

// check refuses a plan the release has moved on from, with one metadata list of
// its revisions. The error wraps kube.ErrChanged and says that nothing was
// changed.
func (r *Runner) check(ctx context.Context, op string, p *Plan) error {
	now, err := r.c.WithDrivers(p.Driver).Versions(ctx, p.Namespace, p.Release)
	if errors.Is(err, kube.ErrNotFound) {
		now, err = nil, nil
	}
	if err != nil {
		return err
	}
	if ch := p.changes(now); len(ch) > 0 {
		return fmt.Errorf("%s of %s refused: %w: %s since the plan was shown. Nothing was changed: look at its history again and retry if it still makes sense",
			op, p.Release, kube.ErrChanged, strings.Join(ch, ", "))
	}
	return nil
}

// listsFirst is an operation whose run reads the records first through Helm's
// listing of them, and writes nothing before: Helm's rollback and uninstall.
type listsFirst interface {
	Operation
	// listsFirst reports whether this run does (a rollback that deletes
	// unreadable records first does not).
	listsFirst() bool
}

// heldByHelmListing reports whether op's apply is checked against its plan by
// Helm's first listing of the records: op lists first, and the plan's store
// is one of Helm's own, whose listings under an operation are held to the
// plan's records (see pins.checkList: a record added, deleted or rewritten
// since stops the operation before any write). The chunked store's
// operations, and those that write before Helm lists, are checked up front.
func heldByHelmListing(op Operation, p *Plan) bool {
	lf, ok := op.(listsFirst)
	return ok && lf.listsFirst() && (p.Driver == kube.DriverSecret || p.Driver == kube.DriverConfigMap)
}

// explain turns the failure of an operation on plan p, run through h, into a
// message. A conflict (the release changed while the operation ran) says what
// the operation had done by then.
func (r *Runner) explain(op string, p *Plan, h helm, err error) error {
	t := h.track()
	var ref refusal
	switch {
	case errors.As(err, &ref) && !t.conflicted():
		return ref.error
	case errors.Is(err, kube.ErrChanged) && !t.conflicted():
		return err
	case t.conflicted(), isConflict(err), errors.Is(err, driver.ErrReleaseExists), errors.Is(err, driver4.ErrReleaseExists):
		// Helm flattens some errors to text (uninstall's), so the tracker's
		// record of a conflict decides. Helm numbers a new revision after the
		// latest it read; ErrReleaseExists means another writer stored that
		// revision first.
		return fmt.Errorf("%s of %s stopped: %w (another operator, helm or chunkview wrote it at the same time). %s; nothing was overwritten: look at its history again and retry: %w",
			op, p.Release, kube.ErrChanged, t.done(), err)
	case errors.Is(err, kube.ErrReadOnly), errors.Is(err, kube.ErrInProgress):
		return err
	}
	// The operation made several requests and one failed: those before it were
	// applied. Every record is whole either way (the driver writes chunks before
	// the index that names them), so what is left to check is where it stopped.
	c, row := r.c, p.latest()
	return fmt.Errorf("%s: %w; it may have been partly applied: check the release with `%s` and `%s`, remove leftover chunks with `%s`, then retry", op, lostServer(kube.Explain(h.explain(err), "update", "secrets", p.StorageNamespace), c.Config().Server),
		c.Config().SuggestFor(row, "history"), c.Config().SuggestFor(row, "verify"), c.Config().Suggest("gc", ""))
}
