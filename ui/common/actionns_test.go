package common

import (
	"testing"

	"github.com/chunkview/chunkview/kube"
)

// TestActionNamespace: an operation's confirmation names the release's own
// namespace, as its newest row knows it (an OLMv1 extension's records are in
// olmv1-system, its objects in cert-manager), and the storage namespace only
// when no row knows the release's.
func TestActionNamespace(t *testing.T) {
	row := func(rev int, ns string, unknown bool) kube.RevisionRow {
		r := kube.RevisionRow{Revision: rev, StorageNamespace: "olmv1-system", NamespaceUnknown: unknown}
		r.Summary.Namespace = ns
		return r
	}
	for _, c := range []struct {
		name string
		rows []kube.RevisionRow
		want string
	}{
		{"known", []kube.RevisionRow{row(1, "cert-manager", false), row(2, "cert-manager", false)}, "cert-manager"},
		{"newest wins", []kube.RevisionRow{row(3, "cert-manager", false), row(2, "old", false)}, "cert-manager"},
		{"unknown", []kube.RevisionRow{row(1, "", true)}, "olmv1-system"},
		{"no rows", nil, "olmv1-system"},
	} {
		if got := ActionNamespace(c.rows, "olmv1-system"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
