package kube

import (
	"maps"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/storage"
)

// What the revisions of a release hold, for ls and the release list: so that a
// person sees what pruning the history would free.
//
// A listing learns a revision's stored size where it costs nothing more:
//   - chunked records chunkview wrote carry it in their index's summary
//     annotation, which the listing's metadata list already holds for every
//     revision;
//   - Helm's Secrets and ConfigMaps carry no size in their metadata, and the
//     listing reads the data of the records not superseded (its second list):
//     those revisions are sized, the superseded ones are not;
//   - chunked records another tool wrote carry none either: only the latest,
//     once its row is filled, is sized.
//
// Learning every size would cost the data of every revision (the full records
// of Helm's stores, every index Secret of the chunked one): a lower bound, the
// sum of the sizes known with the count of revisions it covers, is shown
// instead of a figure that would be wrong.

// HistoryBytes returns what the release's revisions take in their store, summed
// over the revisions whose size is known, and how many those are: fewer than
// Revisions makes the sum a lower bound (sized 0: nothing is known). The latest
// revision counts with its row's size once that is known, also when a fill
// learned it after the listing.
func (r ReleaseRow) HistoryBytes() (bytes int64, sized int) {
	latest := r.Latest.Revision
	for rev, n := range r.sizes {
		if rev != latest {
			bytes += n
			sized++
		}
	}
	if n := knownSize(r.Latest); n > 0 {
		bytes += n
		sized++
	} else if n := r.sizes[latest]; n > 0 {
		bytes += n
		sized++
	}
	return bytes, min(sized, max(r.Revisions, 1))
}

// SetRevisionSize records that revision rev takes n stored bytes; n <= 0
// forgets what was known of it (its size is not known now).
func (r *ReleaseRow) SetRevisionSize(rev int, n int64) {
	if n <= 0 {
		if _, ok := r.sizes[rev]; ok {
			r.sizes = maps.Clone(r.sizes)
			delete(r.sizes, rev)
		}
		return
	}
	if r.sizes[rev] == n {
		return
	}
	// Copies of a row share its map until one of them changes it.
	r.sizes = maps.Clone(r.sizes)
	if r.sizes == nil {
		r.sizes = map[int]int64{}
	}
	r.sizes[rev] = n
}

// knownSize is a row's stored bytes when known, else 0.
func knownSize(r RevisionRow) int64 {
	if r.Known {
		return max(r.Summary.StoredBytes, 0)
	}
	return 0
}

// storedBytesOf reads the stored size off the summary chunkview records on an
// index Secret, as storage.SummaryFromMeta reads it (0 when it records none),
// without decoding the rest of the summary: a listing does this for every
// revision, where it decodes the summary of each release's latest alone.
func storedBytesOf(m metav1.Object) int64 {
	a := m.GetAnnotations()
	if chunks, err := strconv.Atoi(a[storage.AnnotationChunks]); err != nil || chunks < 1 {
		return 0
	}
	js, ok := a[storage.AnnotationSummary]
	if !ok {
		n, _ := strconv.ParseInt(a[storage.AnnotationStoredBytes], 10, 64)
		return max(n, 0)
	}
	// Inside a JSON string a quote is escaped, so this key, quoted and
	// followed by a colon, can only be the summary's own field.
	const field = `"storedBytes":`
	i := strings.Index(js, field)
	if i < 0 {
		return 0
	}
	rest := js[i+len(field):]
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, _ := strconv.ParseInt(rest[:end], 10, 64)
	return n
}
