package ops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
)

// Operation is one change to a release, planned from the rows a person was shown
// and applied by Runner.Apply exactly as planned, or not at all. Only this package
// defines operations: Rollback, Uninstall, DeleteRevision and FixStuck.
type Operation interface {
	// Verb names the operation as permissions and messages do (kube.OpRollback,
	// ...).
	Verb() string
	// Base is the release as the operation was planned from.
	Base() *Plan
	// Helm is the Helm whose actions and types run the operation: 3 or 4 (see
	// helmFor). A plan shows it before it is confirmed.
	Helm() int
	// run applies the operation through h, whose driver is held to the plan.
	run(ctx context.Context, r *Runner, h helm) error
}

// Runner plans and applies operations on the cluster of one connection. It reads
// through the connection (its details cache included) and writes through Helm's
// own actions and drivers, of the Helm that wrote the release.
type Runner struct {
	c *kube.Client
	// rules are the permission rules read of each namespace, for a while (see
	// Review): an operation's plan and its apply ask once.
	rules *rulesCache
	// fresh starts the operation's one discovery pass (see discovery).
	fresh sync.Once
}

// discovery starts the runner's one pass of discovery, at its first reader:
// the controller checks of the plan and of the apply, the removed-APIs check
// and Helm's kube clients then read what the cluster serves once between them,
// and afresh for each runner (one per operation), although the connection
// lasts (the TUI's).
func (r *Runner) discovery() { r.fresh.Do(r.c.FreshDiscovery) }

// ServedAPIs is the connection's ServedAPIs, read in the runner's discovery
// pass.
func (r *Runner) ServedAPIs(ctx context.Context) (*apis.Served, error) {
	r.discovery()
	return kube.NewChecker(r.c).ServedAPIs(ctx)
}

// NewRunner returns the runner of operations over connection c. It holds no
// state but the permission rules it read (see Review): making one per operation
// costs nothing, and one operation's plan and apply share them.
func NewRunner(c *kube.Client) *Runner {
	r := &Runner{c: c}
	r.rules = newRulesCache(r)
	return r
}

// Client returns the connection the runner reads and writes through.
func (r *Runner) Client() *kube.Client { return r.c }

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

// refusal is an error an operation returns before it changed anything: Apply
// hands it back as it is.
type refusal struct{ error }

func (e refusal) Unwrap() error { return e.error }

// refuse marks err as a refusal made before anything changed.
func refuse(err error) error {
	if err == nil {
		return nil
	}
	return refusal{err}
}
