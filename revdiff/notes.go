package revdiff

import "helm.sh/helm/v3/pkg/release"

// MaskNotes returns a release's notes with every secret the release holds (values
// under sensitive keys, Secret data and stringData in its manifest and hooks)
// replaced by its masked token, as Diff does for the notes it compares. Charts
// often print a generated password in their notes. With reveal, the notes are
// returned as they are.
func MaskNotes(rel *release.Release, reveal bool) string {
	if rel == nil || rel.Info == nil {
		return ""
	}
	return Scrubber(rel, reveal)(rel.Info.Notes)
}
