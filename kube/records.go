package kube

import (
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/storage"
)

// rowOf reads a revision row off index metadata.
func rowOf(m *metav1.PartialObjectMetadata) RevisionRow {
	names, namesKnown := storage.ChunkNamesFromMeta(m)
	r := RevisionRow{
		chunkNames:       names,
		chunkNamesKnown:  namesKnown,
		StorageNamespace: m.Namespace,
		Status:           m.Labels[storage.LabelStatus],
		Key:              m.Name,
		ResourceVersion:  m.ResourceVersion,
		Driver:           DriverChunked,
		ControlledBy:     controlledBy(m),
		Labels:           customLabelsOf(m),
	}
	r.Name, r.Revision = nameAndRevision(m)
	r.Written = writtenAt(m)
	if s, ok := storage.SummaryFromMeta(m); ok {
		r.Summary, r.Known = s, true
	}
	r.settle()
	return r
}

// nameAndRevision reads a record's release name and revision from its labels,
// or from its key (sh.helm.release.v1.NAME.vN) where a label is missing.
func nameAndRevision(m metav1.Object) (string, int) {
	name := m.GetLabels()[storage.LabelName]
	rev, _ := strconv.Atoi(m.GetLabels()[storage.LabelVersion])
	if n, v, ok := storage.ParseKey(m.GetName()); ok {
		if name == "" {
			name = n
		}
		if rev == 0 {
			rev = v
		}
	}
	return name, rev
}

// writtenAt returns when a record was last written: its modifiedAt label, else its
// createdAt label, else the Secret's creation time.
func writtenAt(m metav1.Object) time.Time {
	for _, l := range []string{storage.LabelModifiedAt, storage.LabelCreatedAt} {
		if sec, err := strconv.ParseInt(m.GetLabels()[l], 10, 64); err == nil && sec > 0 {
			return time.Unix(sec, 0)
		}
	}
	return m.GetCreationTimestamp().Time
}

// controlledBy is "Kind/Name" of m's controller ownerReference, "" without one.
func controlledBy(m metav1.Object) string {
	if ref := metav1.GetControllerOf(m); ref != nil {
		return ref.Kind + "/" + ref.Name
	}
	return ""
}

// customLabelsOf returns the labels of m the driver does not manage (see
// storage.IsSystemLabel); nil when there are none.
func customLabelsOf(m metav1.Object) map[string]string {
	var out map[string]string
	for k, v := range m.GetLabels() {
		if storage.IsSystemLabel(k) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}
