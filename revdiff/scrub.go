package revdiff

import "helm.sh/helm/v3/pkg/release"

// Scrubber returns a function that replaces, in any text, every secret release
// rel holds with its masked token: the values under sensitive keys (user-supplied
// and computed), and the data and stringData of the Secrets in its manifest and
// hooks, as MaskNotes finds them. Text from the cluster, such as a container's
// log or an event's message, may repeat one of them. A secret shorter than 8
// characters, or one that reads like a name, is not looked for (it would hit
// ordinary words); nor is anything the release does not hold. With reveal, or a
// nil release, the text comes back as it is.
func Scrubber(rel *release.Release, reveal bool) func(string) string {
	if reveal || rel == nil {
		return func(s string) string { return s }
	}
	m := newMasker(false)
	// What could be masked before an error is still scrubbed.
	_, _ = m.prepare(rel)
	r := m.replacer()
	return func(s string) string { return scrub(r, s) }
}
