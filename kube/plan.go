package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// Plan is the state of a release an operation was planned from, as the user saw
// it: its revision records and the resourceVersion of each index. An operation
// applies a plan only while the release is still in that state; see Client.check.
type Plan struct {
	// Release is the release's name.
	Release string `json:"release"`
	// Namespace is the namespace the release was looked up in.
	Namespace string `json:"-"`
	// Driver is the store that holds the release's records.
	Driver string `json:"driver"`
	// StorageNamespace holds the release's records.
	StorageNamespace string `json:"storageNamespace"`
	// Records maps each revision's key (its index Secret's name) to the index's
	// resourceVersion.
	Records map[string]string `json:"records"`
	// Latest is the latest revision.
	Latest int `json:"latest"`
	// Rows are the revisions, oldest first.
	Rows []RevisionRow `json:"-"`
}

// NewPlan returns the plan of the release whose revisions rows list (as History
// returns them), looked up in namespace ns. It reads nothing: a screen makes the
// plan of what it shows.
func NewPlan(ns string, rows []RevisionRow) (*Plan, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: no revisions to plan from", ErrNotFound)
	}
	rows = append([]RevisionRow(nil), rows...)
	sort.Slice(rows, func(i, j int) bool { return rows[i].Revision < rows[j].Revision })
	p := &Plan{Release: rows[0].Name, Namespace: ns, Driver: rows[0].driver(), StorageNamespace: rows[0].StorageNamespace, Records: map[string]string{}, Rows: rows}
	for _, r := range rows {
		if r.Name != p.Release || r.StorageNamespace != p.StorageNamespace || r.driver() != p.Driver {
			return nil, fmt.Errorf("revisions of %s/%s (%s) and %s/%s (%s) cannot be planned together", p.StorageNamespace, p.Release, p.Driver, r.StorageNamespace, r.Name, r.driver())
		}
		if r.ResourceVersion == "" {
			return nil, fmt.Errorf("revision %d of %q has no resourceVersion to hold it to", r.Revision, r.Name)
		}
		p.Records[r.Key] = r.ResourceVersion
	}
	p.Latest = rows[len(rows)-1].Revision
	return p, nil
}

// plan reads the history of a release and returns its plan.
func (c *Client) plan(ctx context.Context, ns, name string) (*Plan, error) {
	rows, err := c.History(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return NewPlan(ns, rows)
}

// Row returns the plan's row of revision rev (0: the latest).
func (p *Plan) Row(rev int) (RevisionRow, error) {
	if rev == 0 {
		rev = p.Latest
	}
	for _, r := range p.Rows {
		if r.Revision == rev {
			return r, nil
		}
	}
	return RevisionRow{}, fmt.Errorf("%w: release %q has no revision %d (it has %d..%d)", ErrNotFound, p.Release, rev, p.Rows[0].Revision, p.Latest)
}

// changes compares the plan with the revisions stored now, and says what differs:
// revisions added, removed or rewritten since the plan was made.
func (p *Plan) changes(now []RevisionRow) []string {
	byKey := map[string]RevisionRow{}
	for _, r := range now {
		byKey[r.Key] = r
	}
	var out []string
	for _, r := range p.Rows {
		n, ok := byKey[r.Key]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("revision %d was deleted", r.Revision))
		case n.ResourceVersion != r.ResourceVersion:
			what := fmt.Sprintf("revision %d was rewritten", r.Revision)
			if n.Status != r.Status {
				what += fmt.Sprintf(" (%s, was %s)", n.Status, r.Status)
			}
			out = append(out, what)
		}
		delete(byKey, r.Key)
	}
	added := make([]RevisionRow, 0, len(byKey))
	for _, r := range byKey {
		added = append(added, r)
	}
	sort.Slice(added, func(i, j int) bool { return added[i].Revision < added[j].Revision })
	for _, r := range added {
		out = append(out, fmt.Sprintf("revision %d (%s) was added", r.Revision, r.Status))
	}
	return out
}

// check refuses a plan the release has moved on from, with one metadata list of its
// revisions. The error wraps ErrChanged and says that nothing was changed.
func (c *Client) check(ctx context.Context, op string, p *Plan) error {
	if p == nil || len(p.Rows) == 0 {
		return fmt.Errorf("%s: no plan to apply", op)
	}
	now, err := c.WithDrivers(p.driver()).versions(ctx, p.Namespace, p.Release)
	if errors.Is(err, ErrNotFound) {
		now, err = nil, nil
	}
	if err != nil {
		return err
	}
	if ch := p.changes(now); len(ch) > 0 {
		return fmt.Errorf("%s of %s refused: %w: %s since the plan was shown. Nothing was changed: look at its history again and retry if it still makes sense",
			op, p.Release, ErrChanged, strings.Join(ch, ", "))
	}
	return nil
}

// driver returns the plan's store, chunked when unset.
func (p *Plan) driver() string {
	if p.Driver == "" {
		return DriverChunked
	}
	return p.Driver
}

// pinned returns the driver an operation on p runs through: one driver value of
// the release's store, held to the plan's records (a read that finds the release
// moved on, and a write over a record that changed, fail with
// storage.ErrConflict), that keeps what it wrote.
func (c *Client) pinned(ctx context.Context, p *Plan) *planDriver {
	return &planDriver{rd: c.store(p.driver()).pinned(ctx, p)}
}

// planDriver is the driver under an operation: it keeps the writes that succeeded,
// so that an operation that fails halfway can say what it did.
type planDriver struct {
	rd          recordDriver
	mu          sync.Mutex
	writes      []string
	createdKeys []string
	// conflict is set once any call met a release that moved on (see
	// noteConflict); resources once Helm changed a resource through guard.
	conflict, resources atomic.Bool
}

var _ driver.Driver = (*planDriver)(nil)

// Name is the name of the store's driver.
func (d *planDriver) Name() string { return d.rd.Name() }

func (d *planDriver) wrote(what string, key string) {
	rev := key
	if _, n, ok := storage.ParseKey(key); ok {
		rev = fmt.Sprintf("revision %d", n)
	}
	d.mu.Lock()
	d.writes = append(d.writes, rev+" "+what)
	d.mu.Unlock()
}

// created reports whether the operation created the record of key.
func (d *planDriver) created(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.createdKeys, key)
}

// Create stores a new record and keeps that it did.
func (d *planDriver) Create(key string, rls *release.Release) error {
	err := d.rd.Create(key, rls)
	d.noteConflict(err)
	if err == nil {
		d.wrote("created", key)
		d.mu.Lock()
		d.createdKeys = append(d.createdKeys, key)
		d.mu.Unlock()
	}
	return err
}

// Update replaces a record and keeps that it did.
func (d *planDriver) Update(key string, rls *release.Release) error {
	err := d.rd.Update(key, rls)
	d.noteConflict(err)
	if err == nil {
		d.wrote("updated", key)
	}
	return err
}

// Delete removes a record and keeps that it did.
func (d *planDriver) Delete(key string) (*release.Release, error) {
	rls, err := d.rd.Delete(key)
	d.noteConflict(err)
	if err == nil {
		d.wrote("deleted", key)
	}
	return rls, err
}

// ForceDelete removes a record without decoding it and keeps that it did.
func (d *planDriver) ForceDelete(key string) error {
	err := d.rd.ForceDelete(key)
	d.noteConflict(err)
	if err == nil {
		d.wrote("deleted", key)
	}
	return err
}

// done says what the operation wrote before it stopped.
func (d *planDriver) done() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	resources := ""
	if d.resources.Load() {
		resources = ", and Helm had changed the release's resources"
	}
	if len(d.writes) == 0 {
		if resources != "" {
			return "Before it stopped, Helm had changed the release's resources"
		}
		return "Nothing was changed"
	}
	return "Before it stopped, chunkview had " + strings.Join(d.writes, ", ") + resources
}

// explainApply turns the failure of an operation on plan p into a message. A
// conflict (the release changed while the operation ran) says what the operation
// had done by then.
func (c *Client) explainApply(op string, p *Plan, d *planDriver, err error) error {
	switch {
	case errors.Is(err, ErrChanged) && !d.conflicted():
		return err
	case d.conflicted(), errors.Is(err, storage.ErrConflict), errors.Is(err, driver.ErrReleaseExists):
		// Helm flattens some errors to text (uninstall's), so the driver's own
		// record of a conflict decides.
		// Helm numbers a new revision after the latest it read; ErrReleaseExists
		// means another writer stored that revision first.
		return fmt.Errorf("%s of %s stopped: %w (another operator, helm or chunkview wrote it at the same time). %s; nothing was overwritten: look at its history again and retry: %w",
			op, p.Release, ErrChanged, d.done(), err)
	}
	return c.explainOp(op, p.StorageNamespace, err)
}
