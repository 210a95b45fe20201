package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube/internal/paging"
	"github.com/chunkview/chunkview/storage"
)

// helmStore is one of Helm's own drivers: Secrets (type helm.sh/release.v1) or
// ConfigMaps. Each revision is one object named sh.helm.release.v1.NAME.vN in the
// release's namespace, labelled name, owner=helm, status and version, whose
// data.release is base64 of the gzipped release JSON. Helm ignores any storage
// namespace: its records always live beside the release.
type helmStore struct {
	c    *Client
	kind string // DriverSecret or DriverConfigMap
}

var _ store = (*helmStore)(nil)

// HelmSecretType is the type of the Secrets Helm's Secrets driver writes.
const HelmSecretType = storage.SecretTypeHelm

// helmDataKey is the data key of the release in Helm's records.
const helmDataKey = storage.HelmDataKey

func (s *helmStore) name() string { return s.kind }

// limit is the API server's limit on one object's data: Helm's record must fit.
func (s *helmStore) limit() int64 { return storage.HelmRecordLimit }

func (s *helmStore) resource() string { return StoreResource(s.kind) }

func (s *helmStore) gvr() schema.GroupVersionResource {
	return corev1.SchemeGroupVersion.WithResource(s.resource())
}

// fieldSelector keeps Helm's Secrets apart from chunked index Secrets that carry
// the same owner label.
func (s *helmStore) fieldSelector() string {
	if s.kind == DriverConfigMap {
		return ""
	}
	return "type=" + string(HelmSecretType)
}

func helmSelector(extra labels.Set) string {
	sel := labels.Set{storage.LabelOwner: HelmOwner}
	maps.Copy(sel, extra)
	return labels.SelectorFromSet(sel).String()
}

// listMeta lists the metadata of the store's records in ns ("" for all) that
// sel selects: no data crosses the wire.
func (s *helmStore) listMeta(ctx context.Context, ns, sel string) ([]metav1.PartialObjectMetadata, error) {
	items, err := paging.All(ctx, func(ctx context.Context, cont string) ([]metav1.PartialObjectMetadata, string, error) {
		opts := metav1.ListOptions{LabelSelector: sel, FieldSelector: s.fieldSelector(), Limit: metadataPage, Continue: cont}
		list, err := s.c.md.Resource(s.gvr()).Namespace(ns).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		return list.Items, list.Continue, nil
	})
	if err != nil {
		return nil, Explain(err, "list", s.resource(), ns)
	}
	return items, nil
}

// helmObject is one record: its metadata and the value of data.release.
type helmObject struct {
	meta metav1.ObjectMeta
	data []byte
}

// helmPage bounds a page of whole records, each of which may hold up to 1 MiB:
// one page is what a listing holds at a time. Typical records are tens of KB, so
// a page is a few MB and most namespaces need one.
const helmPage = 250

// listRecords lists whole records in ns that sel selects.
func (s *helmStore) listRecords(ctx context.Context, ns, sel string) ([]helmObject, error) {
	items, err := paging.All(ctx, func(ctx context.Context, cont string) ([]helmObject, string, error) {
		return s.recordPage(ctx, ns, sel, cont)
	})
	if err != nil {
		return nil, Explain(err, "list", s.resource(), ns)
	}
	return items, nil
}

// recordPage reads one page of whole records from continue token cont.
func (s *helmStore) recordPage(ctx context.Context, ns, sel, cont string) ([]helmObject, string, error) {
	opts := metav1.ListOptions{LabelSelector: sel, FieldSelector: s.fieldSelector(), Limit: helmPage, Continue: cont}
	if s.kind == DriverConfigMap {
		list, err := s.c.cs.CoreV1().ConfigMaps(ns).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		out := make([]helmObject, len(list.Items))
		for i := range list.Items {
			out[i] = helmObject{meta: list.Items[i].ObjectMeta, data: []byte(list.Items[i].Data[helmDataKey])}
		}
		return out, list.Continue, nil
	}
	list, err := s.c.cs.CoreV1().Secrets(ns).List(ctx, opts)
	if err != nil {
		return nil, "", err
	}
	out := make([]helmObject, len(list.Items))
	for i := range list.Items {
		out[i] = helmObject{meta: list.Items[i].ObjectMeta, data: list.Items[i].Data[helmDataKey]}
	}
	return out, list.Continue, nil
}

// getRecord reads one whole record.
func (s *helmStore) getRecord(ctx context.Context, ns, key string) (helmObject, error) {
	if s.kind == DriverConfigMap {
		cm, err := s.c.cs.CoreV1().ConfigMaps(ns).Get(ctx, key, metav1.GetOptions{})
		if err != nil {
			return helmObject{}, err
		}
		return helmObject{meta: cm.ObjectMeta, data: []byte(cm.Data[helmDataKey])}, nil
	}
	sec, err := s.c.cs.CoreV1().Secrets(ns).Get(ctx, key, metav1.GetOptions{})
	if err != nil {
		return helmObject{}, err
	}
	if sec.Type != HelmSecretType {
		return helmObject{}, fmt.Errorf("%w: Secret %s/%s has type %q, not %s", storage.ErrCorrupt, ns, key, sec.Type, HelmSecretType)
	}
	return helmObject{meta: sec.ObjectMeta, data: sec.Data[helmDataKey]}, nil
}

// rowOf reads a revision row off a record's metadata.
func (s *helmStore) rowOf(m metav1.Object) RevisionRow {
	r := RevisionRow{
		Driver:           s.kind,
		StorageNamespace: m.GetNamespace(),
		Status:           m.GetLabels()[storage.LabelStatus],
		Key:              m.GetName(),
		ResourceVersion:  m.GetResourceVersion(),
		LimitBytes:       s.limit(),
		ControlledBy:     controlledBy(m),
		Labels:           customLabelsOf(m),
	}
	r.Name, r.Revision = nameAndRevision(m)
	r.Written = writtenAt(m)
	r.settle()
	return r
}

// summarize fills a row from its record's bytes: the chart's metadata read from
// the front of the stream when it is there, else a full decode.
func (s *helmStore) summarize(r *RevisionRow, data []byte) {
	stored := int64(len(data))
	if sum, applyMethod, ok := storage.PeekHelmSummary(data); ok {
		if sum.Namespace == "" {
			sum.Namespace = r.StorageNamespace
		}
		sum.StoredBytes, sum.Chunks = stored, 1
		r.Summary, r.Known, r.ApplyMethod = sum, true, applyMethod
		r.Checked, r.Unchecked = true, ""
		r.settle()
		return
	}
	rec, err := storage.DecodeHelmRecord(data, 0)
	if err != nil {
		r.Broken, r.Problem = true, err.Error()
		r.Summary.StoredBytes, r.Summary.Chunks = stored, 1
		return
	}
	s.fromRecord(r, rec, stored)
}

// fromRecord fills a row from a decoded record.
func (s *helmStore) fromRecord(r *RevisionRow, rec *storage.HelmRecord, stored int64) {
	sum := storage.SummaryOf(rec.Release)
	if sum.Namespace == "" {
		sum.Namespace = r.StorageNamespace
	}
	sum.StoredBytes, sum.DecodedBytes, sum.Chunks = stored, int64(rec.DecodedBytes), 1
	r.Summary, r.Known = sum, true
	r.ApplyMethod, r.UnknownFields = rec.ApplyMethod, rec.UnknownFields
	r.Checked, r.Unchecked, r.Broken, r.Problem = true, "", false, ""
	r.settle()
}

// listNamespace is where the store's records of the releases in view live.
func (s *helmStore) listNamespace() string {
	if s.c.cfg.AllNamespaces || s.c.cfg.Namespace == "" {
		return metav1.NamespaceAll
	}
	return s.c.cfg.Namespace
}

// releases takes two lists whatever the number of releases: a metadata list of
// every record, for the count of revisions, then the records not superseded, in
// pages of helmPage, each read only up to its chart's metadata. A latest revision
// that the second list missed (superseded, or rewritten in between) is read on
// its own. With light, only the first.
func (s *helmStore) releases(ctx context.Context, name string, light bool) ([]ReleaseRow, error) {
	ns := s.listNamespace()
	namespaces := []string{ns}
	var named labels.Set
	if name != "" {
		named = labels.Set{storage.LabelName: name}
	}
	all := helmSelector(named)
	metas, err := s.listMeta(ctx, ns, all)
	var partial error
	if err != nil && ns == metav1.NamespaceAll && errors.Is(err, ErrForbidden) {
		metas = nil
		partial = s.c.cfg.eachReadable(err, func(ns string) error {
			m, err := s.listMeta(ctx, ns, all)
			metas = append(metas, m...)
			return err
		})
		pe, ok := partial.(*PartialError)
		if !ok {
			return nil, partial
		}
		namespaces = pe.Read
	} else if err != nil {
		return nil, err
	}
	rows := make([]RevisionRow, len(metas))
	for i := range metas {
		rows[i] = s.rowOf(&metas[i])
	}
	out := groupReleases(rows, name != "")
	if len(out) == 0 || light {
		return out, partial
	}
	// The latest records, summarized a page at a time: what is kept is their
	// rows, never their data.
	byKey := map[string]RevisionRow{}
	live := all + "," + storage.LabelStatus + "!=" + release.StatusSuperseded.String()
	for _, ns := range namespaces {
		rows, err := s.listSummaries(ctx, ns, live)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			byKey[r.StorageNamespace+"/"+r.Key] = r
		}
	}
	// The records read whole are sized, the superseded ones are not (see
	// HistoryBytes).
	byRelease := make(map[releaseID]int, len(out))
	for i := range out {
		byRelease[releaseID{out[i].Latest.StorageNamespace, out[i].Latest.Name}] = i
	}
	for _, r := range byKey {
		if i, ok := byRelease[releaseID{r.StorageNamespace, r.Name}]; ok {
			out[i].SetRevisionSize(r.Revision, knownSize(r))
		}
	}
	for i := range out {
		l := &out[i].Latest
		if r, ok := byKey[l.StorageNamespace+"/"+l.Key]; ok {
			*l = r
			continue
		}
		rec, err := s.getRecord(ctx, l.StorageNamespace, l.Key)
		if apierrors.IsNotFound(err) {
			// Deleted since the metadata list: shown as it was listed.
			l.Unchecked = "its record was deleted while it was being listed; refresh"
			continue
		}
		if err != nil {
			return nil, Explain(err, "get", s.resource(), l.StorageNamespace)
		}
		*l = s.rowOf(&rec.meta)
		s.summarize(l, rec.data)
	}
	return out, partial
}

// listSummaries lists the records in ns that sel selects, in pages, and returns
// their rows summarized from each page as it arrives, so that at most one page
// of record data is held at a time.
func (s *helmStore) listSummaries(ctx context.Context, ns, sel string) ([]RevisionRow, error) {
	rows, err := paging.All(ctx, func(ctx context.Context, cont string) ([]RevisionRow, string, error) {
		recs, next, err := s.recordPage(ctx, ns, sel, cont)
		if err != nil {
			return nil, "", err
		}
		out := make([]RevisionRow, len(recs))
		for i := range recs {
			out[i] = s.rowOf(&recs[i].meta)
			s.summarize(&out[i], recs[i].data)
		}
		return out, next, nil
	})
	if err != nil {
		return nil, Explain(err, "list", s.resource(), ns)
	}
	return rows, nil
}

// history reads every record of one release whole, unless light: the history
// shows each revision's size.
func (s *helmStore) history(ctx context.Context, sns, name string, light bool) ([]RevisionRow, error) {
	sel := helmSelector(labels.Set{storage.LabelName: name})
	if light {
		metas, err := s.listMeta(ctx, sns, sel)
		if err != nil {
			return nil, err
		}
		rows := make([]RevisionRow, len(metas))
		for i := range metas {
			rows[i] = s.rowOf(&metas[i])
		}
		return rows, nil
	}
	recs, err := s.listRecords(ctx, sns, sel)
	if err != nil {
		return nil, err
	}
	rows := make([]RevisionRow, 0, len(recs))
	for _, rec := range recs {
		r := s.rowOf(&rec.meta)
		s.summarize(&r, rec.data)
		if r.ApplyMethod == "" && !r.Broken {
			// The history shows each revision's apply method, which
			// lies past what the summary reads.
			r.ApplyMethod = applyMethodAtEnd(rec.data, s.c.cfg.Driver.MaxDecodedBytes)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// details reads and decodes one record.
func (s *helmStore) details(ctx context.Context, row RevisionRow) (*Details, bool, error) {
	rec, err := s.getRecord(ctx, row.StorageNamespace, row.Key)
	if apierrors.IsNotFound(err) {
		return nil, false, fmt.Errorf("%w: revision record %s %s/%s is gone; refresh", ErrNotFound, s.kind, row.StorageNamespace, row.Key)
	}
	d := &Details{Row: row}
	if errors.Is(err, storage.ErrCorrupt) {
		d.Row.Broken, d.Row.Problem, d.Row.Checked = true, err.Error(), false
		return d, false, nil
	}
	if err != nil {
		return nil, false, Explain(err, "get", s.resource(), row.StorageNamespace)
	}
	d, keep := s.decoded(row, rec)
	return d, keep, nil
}

// readTogether reads the records of rows, revisions of one release in one
// storage namespace, in one list selected by their version labels, and
// decodes each as details does; a row the list did not return is left out.
func (s *helmStore) readTogether(ctx context.Context, rows []RevisionRow) (map[string]*Details, error) {
	versions := make([]string, len(rows))
	for i, r := range rows {
		versions[i] = strconv.Itoa(r.Revision)
	}
	in, err := labels.NewRequirement(storage.LabelVersion, selection.In, versions)
	if err != nil {
		return nil, err
	}
	sel := labels.SelectorFromSet(labels.Set{storage.LabelOwner: HelmOwner, storage.LabelName: rows[0].Name}).Add(*in)
	recs, err := s.listRecords(ctx, rows[0].StorageNamespace, sel.String())
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]helmObject, len(recs))
	for _, rec := range recs {
		byKey[rec.meta.Name] = rec
	}
	out := map[string]*Details{}
	for _, r := range rows {
		if rec, ok := byKey[r.Key]; ok {
			if d, keep := s.decoded(r, rec); keep {
				out[r.Key] = d
			}
		}
	}
	return out, nil
}

// decoded decodes rec, the record of row, and says whether it may be kept.
func (s *helmStore) decoded(row RevisionRow, rec helmObject) (*Details, bool) {
	d := &Details{Row: row}
	d.Row.ResourceVersion, d.Row.Written = rec.meta.ResourceVersion, writtenAt(&rec.meta)
	d.Row.Writing = false
	r, err := storage.DecodeHelmRecord(rec.data, 0)
	if err != nil {
		d.Row.Broken, d.Row.Problem, d.Row.Checked = true, err.Error(), false
		d.Row.Summary.StoredBytes = int64(len(rec.data))
		return d, true
	}
	s.fromRecord(&d.Row, r, int64(len(rec.data)))
	d.Release = r.Release
	return d, true
}

// layout describes the one object that holds a revision, and what takes its room.
func (s *helmStore) layout(ctx context.Context, row RevisionRow) (*storage.Layout, error) {
	rec, err := s.getRecord(ctx, row.StorageNamespace, row.Key)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%w: revision %d of %q disappeared; refresh", ErrNotFound, row.Revision, row.Name)
	}
	if err != nil && !errors.Is(err, storage.ErrCorrupt) {
		return nil, Explain(err, "get", s.resource(), row.StorageNamespace)
	}
	typ := string(HelmSecretType)
	if s.kind == DriverConfigMap {
		typ = "ConfigMap"
	}
	n := len(rec.data)
	l := &storage.Layout{
		Key: row.Key, Release: row.Name, Revision: row.Revision, Status: row.Status,
		Index: storage.SecretInfo{
			Name: row.Key, Role: storage.RoleRecord, Type: typ, Bytes: n,
			Share: float64(n) / float64(storage.HelmRecordLimit), State: storage.StateOK, HashOK: true, Owned: true,
			Created: rec.meta.CreationTimestamp.Time, Labels: rec.meta.Labels,
		},
		StoredBytes: n, HelmSecretBytes: n, HelmSecretFits: int64(n) <= storage.HelmRecordLimit,
	}
	if err != nil {
		l.Index.State, l.Index.Detail, l.DecodeError = storage.StateCorrupt, err.Error(), err.Error()
		return l, nil
	}
	r, err := storage.DecodeHelmRecord(rec.data, 0)
	if err != nil {
		l.Index.State, l.DecodeError = storage.StateCorrupt, err.Error()
		return l, nil
	}
	l.DecodedBytes, l.Decoded, l.Parts = r.DecodedBytes, r.Release, storage.Breakdown(r.Release)
	return l, nil
}
