package kube

import (
	"context"
	"fmt"
	"sync"

	"github.com/chunkview/chunkview/revdiff"
	"helm.sh/helm/v3/pkg/release"
)

// DiffOptions says how to compare revisions.
type DiffOptions = revdiff.Options

// PreviousRevision, as Diff's from, is the revision before the latest: what
// helm diff revision NAME compares with the latest.
const PreviousRevision = -1

// Diff compares two revisions of a release. Revision 0 is the latest, and from
// may be PreviousRevision.
func (in *Inspector) Diff(ctx context.Context, ns, name string, from, to int, opts DiffOptions) (*revdiff.Result, error) {
	rows, err := in.c.History(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if from == PreviousRevision {
		if len(rows) < 2 {
			return nil, fmt.Errorf("%w: release %q has only revision %d, nothing to compare it with", ErrNotFound, name, rows[0].Revision)
		}
		from = rows[len(rows)-2].Revision
	}
	var pair [2]RevisionRow
	for i, rev := range []int{from, to} {
		if pair[i], err = PickRevision(rows, name, rev); err != nil {
			return nil, err
		}
	}
	return in.diffRows(ctx, pair[0], pair[1], opts)
}

// diffRows compares two revisions already listed (rows of one History). Both are
// read and decoded side by side: each is a few requests and a gunzip and JSON
// decode that do not depend on the other.
func (in *Inspector) diffRows(ctx context.Context, from, to RevisionRow, opts DiffOptions) (*revdiff.Result, error) {
	var (
		rels [2]*release.Release
		errs [2]error
		wg   sync.WaitGroup
	)
	for i, row := range []RevisionRow{from, to} {
		wg.Go(func() { rels[i], errs[i] = in.c.Decode(ctx, row) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // from's first, as when they were read in turn
		}
	}
	return revdiff.Diff(rels[0], rels[1], opts)
}
