package kube

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/chunkview/chunkview/storage"
)

// PendingIndex is the pending index of a create that never completed: the
// index Secret a create of several chunks writes first (labelled type=pending,
// no data; see storage.IsPending), left behind when the create was cut short.
// It holds no release, and until it is removed every create of that revision
// fails as already existing, an operator's next upgrade included. verify
// reports it and gc removes it once it is older than storage.PendingLease.
type PendingIndex struct {
	// Key is the record it would have been: sh.helm.release.v1.NAME.vN.
	Key      string `json:"key"`
	Revision int    `json:"revision"`
	// Created is when it was written (its creationTimestamp).
	Created time.Time `json:"created"`
}

// listingSelector selects, with the extra labels, the index Secrets of the
// owner and their pending indexes: one list finds both.
func (cfg Config) listingSelector(extra labels.Set) labels.Selector {
	set := labels.Set{storage.LabelOwner: cfg.Owner}
	for k, v := range extra {
		set[k] = v
	}
	sel := labels.SelectorFromSet(set)
	if req, err := labels.NewRequirement(storage.LabelType, selection.In, []string{storage.TypeIndex, storage.TypePending}); err == nil {
		sel = sel.Add(*req)
	}
	return sel
}

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
