package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"helm.sh/helm/v3/pkg/storage/driver"
	corev1 "k8s.io/api/core/v1"

	"github.com/chunkview/chunkview/storage"
)

// FillSummaries fills in place the listing rows that lack a summary, a few at a
// time: what a release list shows of them. Chunked rows' index Secrets are read
// with label-selected lists, indexBatch keys per list (storage.ReadIndexes), and
// each row's summary taken from its index's own slice (storage.PeekSummary)
// without fetching a chunk Secret; only a record whose chart metadata lies past
// that slice is decoded in full, from the index already read. A row the list did
// not return, or all of a batch whose list failed, is read with a GET of its
// index, which tells a record gone from a broken one. A peeked row is Known and
// Peeked: its release namespace and sizes stay unknown (see RevisionRow.Peeked),
// and it is not Checked, as none of its chunks was read: CheckHealth looks for
// them. Rows of Helm's stores are decoded as FillDetails does. A broken revision
// is marked in its row and does not fail the rest; errors are for failures to
// reach the server.
//
// Details, and FillDetails, still decode: use them where the release itself or
// its sizes are wanted.
func (c *Client) FillSummaries(ctx context.Context, rows []*RevisionRow) error {
	want := func(r *RevisionRow) bool { return !r.Known && !r.Broken }
	var others []*RevisionRow
	byNS := map[string][]*RevisionRow{}
	var order []string
	for _, r := range rows {
		switch {
		case !want(r):
		case r.driver() != DriverChunked:
			others = append(others, r)
		default:
			if byNS[r.StorageNamespace] == nil {
				order = append(order, r.StorageNamespace)
			}
			byNS[r.StorageNamespace] = append(byNS[r.StorageNamespace], r)
		}
	}
	// The lists of index Secrets run side by side, and beside the decodes of
	// Helm's rows; the fills of all of them share fillWidth slots, so that no
	// more records are decoded at once than by fillEach alone.
	sem := make(chan struct{}, fillWidth)
	var wg sync.WaitGroup
	var othersErr error
	wg.Go(func() {
		othersErr = c.cfg.fillEachIn(sem, others, want, func(r RevisionRow) (RevisionRow, error) {
			d, err := c.Details(ctx, r)
			if err != nil {
				return r, err
			}
			return filledFrom(r, d.Row), nil
		})
	})
	var batches [][]*RevisionRow
	for _, ns := range order {
		batches = slices.AppendSeq(batches, slices.Chunk(byNS[ns], indexBatch))
	}
	s := chunkedStore{c}
	err := forEachIn(make(chan struct{}, indexLists), batches, func(b []*RevisionRow) error {
		idx := s.readIndexes(ctx, b)
		return c.cfg.fillEachIn(sem, b, want, func(r RevisionRow) (RevisionRow, error) {
			if i := idx[r.Key]; i != nil {
				return s.fromIndex(ctx, r, i)
			}
			return s.summary(ctx, r)
		})
	})
	wg.Wait()
	return errors.Join(othersErr, err)
}

// indexBatch is how many index Secrets FillSummaries reads with one list, and
// indexLists how many such lists it has in flight. An index Secret holds up to
// storage.DefaultChunkSize (about 1 MiB, near a Secret's limit) of its record,
// so at worst about 30 MiB of index data is held at once, and while a list is
// read its response body too (a third more in JSON's base64); besides, the rows
// decoded in full take fillWidth slots shared by all. A release list of the
// original driver's records takes one request per indexBatch rows.
//
// Each list is selected by label, which an API server of 1.31 or later answers
// from its watch cache, in memory. An older one, or one with ConsistentListFromCache
// off, reads it from etcd, which scans every Secret of the namespace, chunk
// payloads included, to filter them: a namespace's size per ten rows, where a GET
// reads one Secret. Kubernetes releases before 1.31 are out of support.
const (
	indexBatch = 10
	indexLists = 3
)

// readIndexes reads the index Secrets of rows, all of one storage namespace, with
// one list (storage.ReadIndexes), by key. A row missing from the map, as are all
// of them when the list fails (the user may get Secrets but not list them), is
// for summary to read on its own. A lone row is left to its GET: as many
// requests, and the server reads one Secret, not the namespace's labels.
func (s chunkedStore) readIndexes(ctx context.Context, rows []*RevisionRow) map[string]*corev1.Secret {
	if len(rows) < 2 {
		return nil
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	idx, err := s.driver(rows[0].StorageNamespace).ReadIndexes(ctx, keys)
	if err != nil {
		return nil
	}
	return idx
}

// summary reads one row's index Secret, one GET, and fills the row from it
// (fromIndex).
func (s chunkedStore) summary(ctx context.Context, row RevisionRow) (RevisionRow, error) {
	idx, err := s.driver(row.StorageNamespace).ReadIndex(ctx, row.Key)
	switch {
	case errors.Is(err, driver.ErrReleaseNotFound):
		return row, fmt.Errorf("%w: revision record %s/%s is gone; refresh", ErrNotFound, row.StorageNamespace, row.Key)
	case errors.Is(err, storage.ErrCorrupt):
		row.Broken, row.Problem, row.Checked = true, err.Error(), false
		return row, nil
	case err != nil:
		return row, Explain(err, "get", "secrets", row.StorageNamespace)
	}
	return s.fromIndex(ctx, row, idx)
}

// fromIndex peeks a row's summary from its index Secret's own slice; it decodes
// the record in full when the slice does not hold the chart's metadata (see
// FillSummaries).
func (s chunkedStore) fromIndex(ctx context.Context, row RevisionRow, idx *corev1.Secret) (RevisionRow, error) {
	c := s.c
	names, namesErr := storage.ParseExtraChunks(idx.Name, idx.Data[storage.DataExtraChunks])
	single := namesErr == nil && len(names) == 0
	// A record of one slice is its index: decoded whole from it, with no further
	// request, it gives its exact sizes and namespace too.
	if sum, ok := peekUnlessSingle(idx, single); ok {
		r := row
		r.Written = writtenAt(idx)
		r.Summary, r.Known, r.Peeked = sum, true, true
		r.settle()
		r.Checked, r.Unchecked, r.Writing = false, "", false
		// The record is the index's slice and the chunks' slices, each of the
		// writer's chunk size but the last: one chunk is its whole size; with
		// n > 1 the size lies in ((n-1)×L, n×L] for a first slice of L bytes.
		// Only the bound is kept: a row shows its size as not known rather
		// than a guess (see RevisionRow.StoredAtMost).
		first := int64(len(idx.Data[storage.DataChunk]))
		r.StoredAtMost = int64(sum.Chunks) * first
		// The health check looks for each chunk by name.
		r.chunkNames, r.chunkNamesKnown = names, true
		r.NamespaceUnknown = c.cfg.StorageNamespace != ""
		return r, nil
	}
	drv := chunkedStore{c}.driver(row.StorageNamespace).WithContext(ctx)
	d, keep, err := s.decode(ctx, drv, row, idx)
	if err != nil {
		return row, err
	}
	if keep {
		c.reader.keep(row, d)
	}
	return filledFrom(row, d.Row), nil
}

// peekUnlessSingle is storage.PeekSummary of idx, not tried for a record of one
// slice, which is decoded whole instead (inflating it twice would be waste).
func peekUnlessSingle(idx *corev1.Secret, single bool) (storage.Summary, bool) {
	if single {
		return storage.Summary{}, false
	}
	sum, ok := storage.PeekSummary(idx)
	return sum, ok && sum.Chunks > 0
}
