package ops

import (
	"fmt"
	"sort"

	"github.com/chunkview/chunkview/kube"
)

// Plan is the state of a release an operation was planned from, as the user saw
// it: its revision records and the resourceVersion of each. An operation applies
// a plan only while the release is still in that state (see Runner.Apply), and
// its driver is held to exactly these records while Helm runs.
type Plan struct {
	// Release is the release's name.
	Release string `json:"release"`
	// Namespace is the namespace the release was looked up in.
	Namespace string `json:"-"`
	// Driver is the store that holds the release's records (kube.DriverX).
	Driver string `json:"driver"`
	// StorageNamespace holds the release's records.
	StorageNamespace string `json:"storageNamespace"`
	// Records maps each revision's key (its record's name) to the record's
	// resourceVersion.
	Records map[string]string `json:"records"`
	// Latest is the latest revision.
	Latest int `json:"latest"`
	// Rows are the revisions, oldest first.
	Rows []kube.RevisionRow `json:"-"`
	// IgnoreController lets the operation run although an active controller
	// (see Runner.CheckController) reconciles the release.
	IgnoreController bool `json:"-"`
	// FieldManager, when set, is the field manager a Helm 4 server-side apply
	// of the release's objects runs under, instead of the one that owns them
	// (see ServerSide).
	FieldManager string `json:"-"`
}

// NewPlan returns the plan of the release whose revisions rows list (as
// kube.Client.History returns them), looked up in namespace ns. It reads nothing:
// the CLI and the TUI alike plan from the rows they have read and shown.
func NewPlan(ns string, rows []kube.RevisionRow) (*Plan, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: no revisions to plan from", kube.ErrNotFound)
	}
	rows = append([]kube.RevisionRow(nil), rows...)
	sort.Slice(rows, func(i, j int) bool { return rows[i].Revision < rows[j].Revision })
	p := &Plan{Release: rows[0].Name, Namespace: ns, Driver: store(rows[0]), StorageNamespace: rows[0].StorageNamespace, Records: map[string]string{}, Rows: rows}
	for _, r := range rows {
		if r.Name != p.Release || r.StorageNamespace != p.StorageNamespace || store(r) != p.Driver {
			return nil, fmt.Errorf("revisions of %s/%s (%s) and %s/%s (%s) cannot be planned together", p.StorageNamespace, p.Release, p.Driver, r.StorageNamespace, r.Name, store(r))
		}
		if r.ResourceVersion == "" {
			return nil, fmt.Errorf("revision %d of %q has no resourceVersion to hold it to", r.Revision, r.Name)
		}
		p.Records[r.Key] = r.ResourceVersion
	}
	p.Latest = rows[len(rows)-1].Revision
	return p, nil
}

// store returns the store of a row, chunked when unset.
func store(r kube.RevisionRow) string {
	if r.Driver == "" {
		return kube.DriverChunked
	}
	return r.Driver
}

// Row returns the plan's row of revision rev (0: the latest).
func (p *Plan) Row(rev int) (kube.RevisionRow, error) {
	if rev == 0 {
		rev = p.Latest
	}
	for _, r := range p.Rows {
		if r.Revision == rev {
			return r, nil
		}
	}
	return kube.RevisionRow{}, fmt.Errorf("%w: release %q has no revision %d (it has %d..%d)", kube.ErrNotFound, p.Release, rev, p.Rows[0].Revision, p.Latest)
}

// latest returns the row of the latest revision.
func (p *Plan) latest() kube.RevisionRow { return p.Rows[len(p.Rows)-1] }

// changes compares the plan with the revisions stored now, and says what differs:
// revisions added, removed or rewritten since the plan was made.
func (p *Plan) changes(now []kube.RevisionRow) []string {
	byKey := map[string]kube.RevisionRow{}
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
	added := make([]kube.RevisionRow, 0, len(byKey))
	for _, r := range byKey {
		added = append(added, r)
	}
	sort.Slice(added, func(i, j int) bool { return added[i].Revision < added[j].Revision })
	for _, r := range added {
		out = append(out, fmt.Sprintf("revision %d (%s) was added", r.Revision, r.Status))
	}
	return out
}
