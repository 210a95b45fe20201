package kube

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/storage"
)

// pendingIndexes collects, while a listing groups index metadata by release,
// the pending indexes of interrupted creates: those older than
// storage.PendingLease, as verify and gc count them. A younger one is a create
// in flight and is left out.
type pendingIndexes map[releaseID]PendingIndex

// offer keeps m when it is the pending index of an interrupted create, the
// latest revision of its release so. It reports whether m was a pending index.
func (p pendingIndexes) offer(m *metav1.PartialObjectMetadata, now time.Time) bool {
	if m.Labels[storage.LabelType] != storage.TypePending {
		return false
	}
	if now.Sub(m.CreationTimestamp.Time) < storage.PendingLease {
		return true
	}
	name, rev := nameAndRevision(m)
	k := releaseID{m.Namespace, name}
	if cur, ok := p[k]; !ok || rev > cur.Revision {
		p[k] = PendingIndex{Key: m.Name, Revision: rev, Created: m.CreationTimestamp.Time}
	}
	return true
}

// attach marks each release of rows that a pending index blocks; a release with
// a pending index and no revision (an interrupted first install) gets a row of
// its own, with the pending index's labels, so that what blocks the name shows.
func (p pendingIndexes) attach(rows []ReleaseRow, limit int64) []ReleaseRow {
	if len(p) == 0 {
		return rows
	}
	seen := map[releaseID]bool{}
	for i := range rows {
		l := &rows[i].Latest
		k := releaseID{l.StorageNamespace, l.Name}
		if pi, ok := p[k]; ok && pi.Revision > l.Revision {
			l.PendingIndex = &pi
		}
		seen[k] = true
	}
	for k, pi := range p {
		if seen[k] {
			continue
		}
		rows = append(rows, ReleaseRow{Latest: RevisionRow{
			Name: k.name, StorageNamespace: k.ns, Revision: pi.Revision, Key: pi.Key,
			Driver: DriverChunked, Status: "pending-index", LimitBytes: limit,
			// Nothing to read or check: the row stands for the pending index.
			Known: true, Checked: true, PendingIndex: &pi, Updated: pi.Created, Written: pi.Created,
		}})
	}
	return rows
}
