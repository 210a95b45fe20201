package kube

import (
	"time"

	"github.com/chunkview/chunkview/storage"
)

// RevisionRow is one revision as a listing shows it, read from index Secret metadata
// alone. Fields that need the payload are filled from chunkview's annotations when
// the record carries them, otherwise by Details on demand.
type RevisionRow struct {
	// chunkNames are the extra chunks the index names, when its metadata records
	// them (chunkNamesKnown): the health check looks for each by name.
	chunkNames      []string
	chunkNamesKnown bool

	// StorageNamespace is where the index and chunk Secrets live.
	StorageNamespace string `json:"storageNamespace"`
	Name             string `json:"name"`
	Revision         int    `json:"revision"`
	Status           string `json:"status"`
	Key              string `json:"key"`
	// Updated is when the record was last written (modifiedAt, else createdAt, else
	// the Secret's creation time).
	Updated time.Time `json:"updated"`
	// Summary holds chart, versions, sizes and chunk count when known.
	Summary storage.Summary `json:"summary"`
	// Known reports whether Summary has been filled (from annotations or a decode).
	Known bool `json:"known"`
	// Broken is set when the revision could not be decoded or misses chunk
	// Secrets; Problem says why.
	Broken  bool   `json:"broken,omitempty"`
	Problem string `json:"problem,omitempty"`
	// Checked is set once the revision's chunk Secrets were found all there (from
	// metadata, see CheckHealth) or it was decoded whole. A row neither Checked
	// nor Broken was not checked; Unchecked says why.
	Checked   bool   `json:"checked"`
	Unchecked string `json:"unchecked,omitempty"`
	// Writing is set when chunks are missing but the index was written moments
	// ago (see WritingWindow): another writer is probably storing the record.
	Writing bool `json:"writing,omitempty"`
	// Written is when the index was last written, from its labels.
	Written time.Time `json:"-"`
	// ResourceVersion of the index, used to key cached details.
	ResourceVersion string `json:"-"`
}

// ReleaseRow is one release: its latest revision and how many revisions are stored.
type ReleaseRow struct {
	Latest    RevisionRow `json:"latest"`
	Revisions int         `json:"revisions"`
}

// Pending reports whether the status is one of Helm's pending states.
func Pending(status string) bool {
	switch status {
	case "pending-install", "pending-upgrade", "pending-rollback":
		return true
	}
	return false
}
