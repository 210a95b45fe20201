package releases

import (
	"testing"

	"github.com/chunkview/chunkview/kube"
)

// TestReleasesSwitchNamespace: n picks another namespace (or, left empty, all
// of them); the list, titled after it, loads there, and a late answer for the
// namespace left behind is dropped.
func TestReleasesSwitchNamespace(t *testing.T) {
	s, h := open(t, 120, 37)
	title := func(want string) {
		t.Helper()
		if got := s.Title(); got != want {
			t.Fatalf("title %q, want %q", got, want)
		}
	}
	h.Press("n").Type("shop").Press("enter")
	title("Releases in shop")
	h.Contains("api", "cache").Lacks("legacy")
	// A late answer for the namespace left behind is dropped.
	h.Send(LoadedMsg{View: "default", Gen: 1, Rows: []kube.ReleaseRow{{Latest: kube.RevisionRow{Name: "ghost"}}}})
	h.Lacks("ghost")
	h.Press("n", "enter")
	title("Releases (all namespaces)")
	h.Contains("legacy", "cache")
}
