package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Releases lists the releases in view, one row each with its latest revision, from
// every store the configuration reads (see Config.Drivers). A release held by two
// stores is two rows. It reads metadata, plus, for Helm's stores, the records of
// the latest revisions (to learn their chart and size); chunked rows of records
// chunkview did not write have Known false until Details or FillDetails decodes
// them.
//
// When listing across all namespaces is forbidden, it lists the namespaces the user
// may read instead (the context's and those of --namespaces) and returns their rows
// with a *PartialError that says what was left out. A store the user may not read
// at all is skipped when others were read, with a *StoreSkipError.
func (c *Client) Releases(ctx context.Context) ([]ReleaseRow, error) {
	return c.releases(ctx, "", false, c.cfg.inView)
}

// ReleasesNamed finds, as Releases lists, the releases called name: one row for
// each store and storage namespace that holds one, from metadata selected by that
// name, so that a command by name costs what its release does, not what the
// cluster holds. Rows of Helm's stores are not summarized. A record without its
// name label (written by hand) is not found here; History still finds it.
func (c *Client) ReleasesNamed(ctx context.Context, name string) ([]ReleaseRow, error) {
	return c.prelistNamed(ctx, name).releases(ctx, name, true, c.cfg.inView)
}

// releases lists the releases as Releases does; with -n it keeps those whose
// latest revision keep accepts.
func (c *Client) releases(ctx context.Context, name string, light bool, keep func(RevisionRow) bool) ([]ReleaseRow, error) {
	var (
		all      []ReleaseRow
		partials []error
		skipped  = map[string]error{}
		read     int
	)
	stores := c.stores()
	for _, s := range stores {
		rows, err := s.releases(ctx, name, light)
		if errors.Is(err, ErrPartial) {
			// Every store falls back to the same readable namespaces: one
			// note says it for all.
			if len(partials) == 0 {
				partials = append(partials, err)
			}
			err = nil
		}
		if err != nil {
			if len(stores) > 1 && errors.Is(err, ErrForbidden) {
				skipped[s.name()] = err
				continue
			}
			return nil, err
		}
		read++
		all = append(all, rows...)
	}
	if read == 0 {
		for _, d := range c.cfg.drivers() {
			if err := skipped[d]; err != nil {
				return nil, err
			}
		}
	}
	if len(skipped) > 0 {
		partials = append(partials, &StoreSkipError{Skipped: skipped})
	}
	// Narrow to the namespace in view by where the latest revision's resources
	// live. A release is judged as a whole, never by revision, so that its count
	// and latest revision stay right.
	narrow := !c.cfg.AllNamespaces && c.cfg.Namespace != ""
	out := make([]ReleaseRow, 0, len(all))
	for _, rr := range all {
		c.reader.applyCached(&rr.Latest)
		for i := range rr.History {
			c.reader.applyCached(&rr.History[i])
		}
		if narrow && !keep(rr.Latest) {
			continue
		}
		out = append(out, rr)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Latest, out[j].Latest
		if a.StorageNamespace != b.StorageNamespace {
			return a.StorageNamespace < b.StorageNamespace
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return slices.Index(AllDrivers, a.driver()) < slices.Index(AllDrivers, b.driver())
	})
	return out, errors.Join(partials...)
}

// History lists the revisions of one release, oldest first, from the store that
// holds it. A release held by more than one of the stores read is refused with
// ErrAmbiguous: --driver (WithDrivers) picks one.
func (c *Client) History(ctx context.Context, ns, name string) ([]RevisionRow, error) {
	return c.history(ctx, ns, name, false)
}

// Versions lists the revisions of one release as History does, from metadata
// alone: what a plan's check and a look at the statuses need.
func (c *Client) Versions(ctx context.Context, ns, name string) ([]RevisionRow, error) {
	return c.versions(ctx, ns, name)
}

func (c *Client) versions(ctx context.Context, ns, name string) ([]RevisionRow, error) {
	return c.history(ctx, ns, name, true)
}

func (c *Client) history(ctx context.Context, ns, name string, light bool) ([]RevisionRow, error) {
	var (
		found    []RevisionRow
		holders  []string
		refused  error
		answered int
	)
	for _, s := range c.stores() {
		sns := c.cfg.storeNamespaceFor(s.name(), ns)
		rows, err := s.history(ctx, sns, name, light)
		if err != nil {
			if errors.Is(err, ErrForbidden) && len(c.cfg.drivers()) > 1 {
				refused = err
				continue
			}
			return nil, err
		}
		answered++
		if len(rows) > 0 {
			found, holders = rows, append(holders, s.name())
		}
	}
	switch {
	case len(holders) > 1:
		return nil, fmt.Errorf("%w: %q is stored by %s; pass --driver %s (or another) to pick one",
			ErrAmbiguous, name, strings.Join(holders, " and "), holders[0])
	case len(holders) == 0 && refused != nil && answered == 0:
		return nil, refused
	case len(holders) == 0 && refused != nil:
		return nil, fmt.Errorf("%w (and a store could not be read: %v)", c.cfg.notFound(name, c.cfg.storageNamespaceFor(ns)), refused)
	case len(holders) == 0:
		return nil, c.cfg.notFound(name, c.cfg.storageNamespaceFor(ns))
	}
	for i := range found {
		c.reader.applyCached(&found[i])
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Revision < found[j].Revision })
	return found, nil
}

// Revision returns the row of one revision; rev 0 means the latest.
func (c *Client) Revision(ctx context.Context, ns, name string, rev int) (RevisionRow, error) {
	rows, err := c.History(ctx, ns, name)
	if err != nil {
		return RevisionRow{}, err
	}
	return PickRevision(rows, name, rev)
}

// PickRevision returns revision rev of rows, the history of release name; rev 0
// means the latest.
func PickRevision(rows []RevisionRow, name string, rev int) (RevisionRow, error) {
	if rev == 0 {
		return rows[len(rows)-1], nil
	}
	for _, r := range rows {
		if r.Revision == rev {
			return r, nil
		}
	}
	return RevisionRow{}, fmt.Errorf("%w: release %q has no revision %d (it has %d..%d)", ErrNotFound, name, rev, rows[0].Revision, rows[len(rows)-1].Revision)
}
