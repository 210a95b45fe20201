package revision

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

func TestMain(m *testing.M) { screentest.Main(m) }

// open opens revision rev of release name in default, from the fixture's
// history, and waits until it is decoded.
func open(t testing.TB, name string, rev, w, h int) (*Screen, *screentest.Harness) {
	t.Helper()
	f := screentest.NewFixture(t)
	rows, err := f.Client.History(context.Background(), "default", name)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Revision == rev {
			s := New(screentest.Common(f.Client), r)
			return s, screentest.New(t, s, w, h)
		}
	}
	t.Fatalf("%s has no revision %d", name, rev)
	return nil, nil
}

// TestGolden draws each tab of web's revision 4 at 80x24 and 120x40, masked and
// revealed, a revision that cannot be decoded, and the summary of a revision
// Helm 4 wrote.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name, rel string
		rev       int
		keys      []string
	}{
		{"summary", "web", 4, nil},
		{"values", "web", 4, []string{"2"}},
		{"values_revealed", "web", 4, []string{"2", "v"}},
		{"values_all", "web", 4, []string{"2", "a"}},
		{"manifest", "web", 4, []string{"3"}},
		{"notes", "web", 4, []string{"4"}},
		{"hooks", "web", 4, []string{"5"}},
		{"search", "web", 4, []string{"3", "/", "d", "e", "p", "l", "o", "y", "enter", "n"}},
		{"broken", "legacy", 2, nil},
		{"first", "web", 1, nil},
	} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz[0], sz[1]), func(t *testing.T) {
				_, h := open(t, c.rel, c.rev, sz[0], sz[1])
				h.Press(c.keys...)
				h.Golden()
			})
		}
	}
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("summary_helm4/%dx%d", sz[0], sz[1]), func(t *testing.T) {
			row := screentest.LokiHistory()[5]
			row.ApplyMethod, row.UnknownFields = "server-side", []string{"apply_method", "info.resources"}
			f := screentest.NewFixture(t)
			h := screentest.New(t, New(screentest.Common(f.Client.WithDrivers(kube.DriverSecret)), row), sz[0], sz[1])
			rls := screentest.SimpleRelease("loki-stack", "default", 6, release.StatusDeployed, 1<<10, screentest.Now.Add(-24*time.Hour))
			h.Send(DetailsLoadedMsg{Ns: row.StorageNamespace, Key: row.Key, Rv: row.ResourceVersion, Details: &kube.Details{Row: row, Release: rls}})
			h.Golden()
		})
	}
}

// TestRevealAndCache: secrets are masked until v, everywhere; each rendering is
// made once and kept; a rendering for another resourceVersion is dropped.
func TestRevealAndCache(t *testing.T) {
	s, h := open(t, "web", 4, 120, 37)
	h.Press("2").Contains("password: <masked:").Lacks("hunter2")
	h.Press("v").Contains("hunter2-rev4-very-secret", "secrets revealed")
	h.Press("v").Lacks("hunter2")
	if len(s.rendered) != 3 { // summary, values masked, values revealed
		t.Fatalf("rendered %d texts, want 3 (each once)", len(s.rendered))
	}
	// The manifest's Secret data is masked too.
	h.Press("3").Contains("kind: Secret").Lacks("aHVudGVyMi1yZXY0")
	h.Send(renderedMsg{Ns: "default", Key: s.row.Key, Rv: "stale", Rk: renderKey{tab: tabNotes}, Text: "stale"})
	if _, ok := s.rendered[renderKey{tab: tabNotes}]; ok {
		t.Fatal("a stale rendering was kept")
	}
}

// TestSearchInTextViews: / searches the values, manifest and notes, n and N go
// from match to match and wrap, esc clears the search and then leaves; while the
// text is typed, the screen takes every key (q is a letter).
func TestSearchInTextViews(t *testing.T) {
	s, h := open(t, "web", 4, 80, 21)
	h.Press("3", "/").Type("name: web")
	if !s.Capturing() || !s.HandlesBack() {
		t.Fatal("typing a search: the screen does not take the keys")
	}
	h.Contains("/name: web")
	h.Press("enter").Contains("/name: web: match 1 of ")
	var n, first int
	if _, err := fmt.Sscanf(regexp.MustCompile(`match 1 of .*`).FindString(h.View()), "match 1 of %d (line %d)", &n, &first); err != nil || n < 2 {
		t.Fatalf("%d matches of \"name: web\" in the manifest (%v):\n%s", n, err, h.View())
	}
	h.Press("n").Contains(fmt.Sprintf("match 2 of %d", n))
	for i := 2; i < n; i++ {
		h.Press("n")
	}
	h.Contains(fmt.Sprintf("match %d of %d", n, n))
	h.Press("n").Contains(fmt.Sprintf("match 1 of %d (line %d)", n, first))
	h.Press("N").Contains(fmt.Sprintf("match %d of %d", n, n))
	// The search holds across tabs.
	h.Press("2").Contains("/name: web:")
	h.Press("esc").Lacks("/name: web").Contains("Values")
	h.Press("/").Type("no such text in here").Press("enter").Contains("not found")
	h.Press("esc")
	if s.HandlesBack() || s.Capturing() {
		t.Fatal("with the search cleared, esc is not left to the root to leave the revision")
	}
}

// TestCopyShownText: y copies the text of the tab shown, masked as shown, and
// says so.
func TestCopyShownText(t *testing.T) {
	_, h := open(t, "web", 4, 80, 21)
	h.Press("2", "y")
	if st, _ := h.Status(); !regexp.MustCompile(`^Copied the Values of revision 4 \(\d+ bytes\) to the clipboard, secrets masked\.$`).MatchString(st) {
		t.Errorf("status %q", st)
	}
	h.Press("v", "y")
	if st, _ := h.Status(); !regexp.MustCompile(`^Copied the Values of revision 4 \(\d+ bytes\) to the clipboard, secrets REVEALED\.$`).MatchString(st) {
		t.Errorf("status %q", st)
	}
}

// TestOpens: c opens the record's layout and d the diff with the revision
// before; revision 1 has nothing before it.
func TestOpens(t *testing.T) {
	_, h := open(t, "web", 4, 80, 21)
	for key, want := range map[string]string{"c": "chunks of revision 4", "d": "diff 3→4"} {
		h.Forget().Press(key)
		if s := h.Pushed(); s == nil || s.Title() != want {
			t.Errorf("%s opened %v, want %q", key, s, want)
		}
	}
	_, h = open(t, "web", 1, 80, 21)
	h.Press("d")
	if st, isErr := h.Status(); h.Pushed() != nil || !isErr || st != "Revision 1 has nothing before it to compare with." {
		t.Errorf("d on revision 1: opened %v, status %q", h.Pushed(), st)
	}
}
