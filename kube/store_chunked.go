package kube

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/metadata"

	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// chunkedStore is the chunked format: an index Secret per revision, labelled with
// the configured owner and type=index, plus its chunk Secrets. Its records live in
// the storage namespace when one is set (OLMv1's), else beside the release.
type chunkedStore struct{ c *Client }

var _ store = chunkedStore{}

func (chunkedStore) name() string { return DriverChunked }

func (chunkedStore) resource() string { return "secrets" }

// driver returns the chunked driver over the records of release namespace ns's
// storage namespace, as Helm would read them.
func (s chunkedStore) driver(ns string) *storage.ChunkedSecrets {
	sns := s.c.cfg.storageNamespaceFor(ns)
	return storage.NewDriver(s.c.cs.CoreV1().Secrets(sns), s.c.cfg.Owner, ChunkedConfig(s.c.cfg.Driver, s.c.md, sns))
}

// ChunkedConfig returns the chunked driver's configuration cfg for the records
// in storage namespace sns, reading through md (when set) the versions of the
// chunks it deletes, from metadata alone; whichever Helm's driver type it builds.
func ChunkedConfig(cfg storage.ChunkedSecretsConfig, md metadata.Interface, sns string) storage.ChunkedSecretsConfig {
	if md != nil && cfg.Metadata == nil {
		cfg.Metadata = md.Resource(secretsGVR).Namespace(sns)
	}
	return cfg
}

// limit is MaxWriteChunks × ChunkSize: 0 when no chunk limit is set.
func (s chunkedStore) limit() int64 {
	d := s.c.cfg.Driver
	size := d.ChunkSize
	if size == 0 {
		size = storage.DefaultChunkSize
	}
	return int64(d.MaxWriteChunks) * int64(size)
}

// releases lists index metadata and groups it by release.
func (s chunkedStore) releases(ctx context.Context, name string, _ bool) ([]ReleaseRow, error) {
	c := s.c
	var sel labels.Set
	if name != "" {
		sel = labels.Set{storage.LabelName: name}
	}
	// -n names the release namespace, as in helm. Without a storage namespace the
	// records usually live in it, but may live elsewhere (an operator in one
	// namespace installing into another): look everywhere and narrow later, or,
	// when that is forbidden, where they usually are.
	ns, across := c.cfg.listNamespace(), c.cfg.StorageNamespace == "" && !c.cfg.AllNamespaces && c.cfg.Namespace != ""
	if across {
		ns = metav1.NamespaceAll
	}
	// A release looked up by name keeps every revision's row: the listing
	// is its history, and a command by name plans from it.
	all := name != ""
	out, err := s.indexReleases(ctx, ns, sel, all)
	if err != nil && across && errors.Is(err, ErrForbidden) {
		out, err = s.indexReleases(ctx, c.cfg.Namespace, sel, all)
	}
	var partial error
	if err != nil && !across && ns == metav1.NamespaceAll && errors.Is(err, ErrForbidden) {
		out = nil
		partial = c.cfg.eachReadable(err, func(ns string) error {
			rr, err := s.indexReleases(ctx, ns, sel, all)
			out = append(out, rr...)
			return err
		})
		if _, ok := partial.(*PartialError); ok {
			err = nil
		} else {
			err = partial
		}
	}
	if err != nil {
		return nil, err
	}
	sortReleases(out)
	return out, partial
}

// indexReleases lists the index metadata in ns selected by the extra labels sel
// and groups it by release page by page, keeping each release's latest revision
// and no page: the metadata of 20,000 index Secrets takes about 60 MB in memory
// at once, their latest revisions a tenth of it. A row (its summary decoded from
// its annotations) is made only for a revision later than the latest seen so far
// of its release: in the listing's order (by key: v1, v10, v2...) that is two or
// three of ten. With all, every revision's row is kept (ReleaseRow.History).
//
// A listing (not all) finds in the same list the pending indexes of interrupted
// creates, which mark their release blocked (see PendingIndex). A release looked
// up by name, to plan an operation from, is its records alone.
func (s chunkedStore) indexReleases(ctx context.Context, ns string, sel labels.Set, all bool) ([]ReleaseRow, error) {
	var g releaseGroups
	var pending pendingIndexes
	selector := s.c.cfg.listingSelector(sel)
	if all {
		selector = s.c.cfg.indexSelector(sel)
	}
	limit, now := s.limit(), s.c.Now()
	restart := func() { g = releaseGroups{all: all}; pending = pendingIndexes{} }
	restart()
	err := secretMeta{s.c.md}.each(ctx, ns, selector, restart, func(page []metav1.PartialObjectMetadata) {
		for i := range page {
			m := &page[i]
			if pending.offer(m, now) {
				continue
			}
			name, rev := nameAndRevision(m)
			g.offer(m.Namespace, name, rev, storedBytesOf(m), func() RevisionRow {
				r := rowOf(m)
				r.LimitBytes = limit
				return r
			})
		}
	})
	if err != nil {
		return nil, err
	}
	return pending.attach(g.releases(), limit), nil
}

// history lists the revisions of one release from index metadata.
func (s chunkedStore) history(ctx context.Context, sns, name string, _ bool) ([]RevisionRow, error) {
	c := s.c
	metas, err := secretMeta{c.md}.list(ctx, sns, c.cfg.indexSelector(labels.Set{storage.LabelName: name}))
	if err != nil {
		return nil, err
	}
	if len(metas) == 0 {
		// A record without its name label is listed (its name read from its key)
		// but not selected by name: look for those before saying there is none.
		all, err := secretMeta{c.md}.list(ctx, sns, c.cfg.indexSelector(nil))
		if err != nil {
			return nil, err
		}
		for _, m := range all {
			if n, _, ok := storage.ParseKey(m.Name); ok && n == name && m.Labels[storage.LabelName] == "" {
				metas = append(metas, m)
			}
		}
	}
	rows := make([]RevisionRow, 0, len(metas))
	for i := range metas {
		r := rowOf(&metas[i])
		r.LimitBytes = s.limit()
		rows = append(rows, r)
	}
	return rows, nil
}

// details decodes one revision. A revision missing chunks moments after its
// index was written is not cached: another writer may be storing them now.
func (s chunkedStore) details(ctx context.Context, row RevisionRow) (*Details, bool, error) {
	c := s.c
	drv := chunkedStore{c}.driver(row.StorageNamespace).WithContext(ctx)
	idx, err := drv.ReadIndex(ctx, row.Key)
	if err != nil {
		if errors.Is(err, driver.ErrReleaseNotFound) {
			return nil, false, fmt.Errorf("%w: revision record %s/%s is gone; refresh", ErrNotFound, row.StorageNamespace, row.Key)
		}
		if !errors.Is(err, storage.ErrCorrupt) {
			return nil, false, Explain(err, "get", "secrets", row.StorageNamespace)
		}
		d := &Details{Row: row}
		d.Row.Broken, d.Row.Problem = true, err.Error()
		return d, false, nil
	}
	return s.decode(ctx, drv, row, idx)
}

// decode is details from an index Secret already read.
func (s chunkedStore) decode(ctx context.Context, drv *storage.ChunkedSecrets, row RevisionRow, idx *corev1.Secret) (*Details, bool, error) {
	c := s.c
	d := &Details{Row: row}
	d.Row.ResourceVersion, d.Row.Written = idx.ResourceVersion, writtenAt(idx)
	d.Row.Checked, d.Row.Writing, d.Row.Unchecked = false, false, ""
	d.Row.Peeked, d.Row.StoredAtMost, d.Row.NamespaceUnknown = false, 0, false
	rls, sum, info, err := drv.DecodeStats(ctx, idx)
	switch {
	case err == nil:
		if d.Row.Known && !row.Peeked {
			// Keep the recorded sizes; fill what the payload adds.
			sum.StoredBytes, sum.DecodedBytes, sum.PayloadSHA256 = d.Row.Summary.StoredBytes, d.Row.Summary.DecodedBytes, d.Row.Summary.PayloadSHA256
		}
		d.Row.Summary, d.Row.Known, d.Release = sum, true, rls
		d.Row.settle()
		// A record a newer Helm wrote into the chunked format (an operator built on
		// Helm 4) carries fields Helm 3's actions would drop: the operations that
		// rewrite a revision refuse it, as they do Helm 4's own records.
		d.Row.ApplyMethod, d.Row.UnknownFields = info.ApplyMethod, info.UnknownFields
		d.Row.Broken, d.Row.Problem, d.Row.Checked = false, "", true
	case errors.Is(err, storage.ErrCorrupt) || errors.Is(err, storage.ErrTooLarge):
		d.Row.Broken, d.Row.Problem = true, err.Error()
		if errors.Is(err, storage.ErrChunkMissing) && c.cfg.beingWritten(d.Row.Written) {
			// Another writer may be storing the chunks now, under this very index
			// resourceVersion: not a verdict to keep.
			return d, false, nil
		}
	default:
		return nil, false, Explain(err, "get", "secrets", row.StorageNamespace)
	}
	return d, true, nil
}

// layout inspects the index and chunk Secrets of one revision.
func (s chunkedStore) layout(ctx context.Context, row RevisionRow) (*storage.Layout, error) {
	l, err := s.driver(row.StorageNamespace).Inspect(ctx, row.Key)
	return l, layoutErr(row, err)
}

// layoutSecrets is layout without decoding the payload (storage's
// InspectSecrets); measure completes it.
func (s chunkedStore) layoutSecrets(ctx context.Context, row RevisionRow) (*storage.Layout, error) {
	l, err := s.driver(row.StorageNamespace).InspectSecrets(ctx, row.Key)
	return l, layoutErr(row, err)
}

// measure decodes the payload of a layout from layoutSecrets for its sizes.
func (s chunkedStore) measure(ctx context.Context, row RevisionRow, l *storage.Layout) (*storage.Layout, error) {
	out, err := s.driver(row.StorageNamespace).Measure(ctx, l)
	return out, layoutErr(row, err)
}

func layoutErr(row RevisionRow, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, driver.ErrReleaseNotFound):
		return fmt.Errorf("%w: revision %d of %q disappeared; refresh", ErrNotFound, row.Revision, row.Name)
	}
	return Explain(err, "get", "secrets", row.StorageNamespace)
}
