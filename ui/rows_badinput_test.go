package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/badinput"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/screens/history"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// TestBadInputRows loads the whole corpus of malformed records (storage/testdata/
// badinput) into one namespace and opens the release list: every release is listed,
// the rows of records that cannot be read are marked broken and the others are not,
// nothing panics, and no screen shows payload data. Opening a broken release's
// history and revision says what is wrong instead of failing.
func TestBadInputRows(t *testing.T) {
	c := fakeapi.NewCluster()
	c.SetClock(func() time.Time { return testNow.Add(-time.Hour) })
	cases := badinput.Loaded()
	for _, bc := range cases {
		if err := badinput.Apply(context.Background(), c.Clientset().CoreV1().Secrets("default"), bc); err != nil {
			t.Fatal(err)
		}
	}
	client := kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, testConfig())
	h := newHarness(t, client, Options{}, 160, 50)
	scr := h.screen()
	if strings.Contains(scr, badinput.PlantedSecret) || strings.Contains(scr, badinput.PlantedSecretBase64) {
		t.Errorf("the release list shows payload data:\n%s", scr)
	}
	rs, ok := h.top().(*releases.Screen)
	if !ok {
		t.Fatalf("not on the release list:\n%s", scr)
	}
	rows := map[string]releases.ReleaseItem{}
	for _, it := range rs.Items {
		rows[it.Row.Latest.Name] = it
	}
	lines := strings.Split(scr, "\n")
	for _, bc := range cases {
		it, ok := rows[bc.Name]
		if !ok {
			t.Errorf("%s is not listed:\n%s", bc.Name, scr)
			continue
		}
		// A summary annotation describes a record without decoding it: the list
		// trusts it until the revision is opened.
		wantBroken := !bc.Readable && bc.Name != "summary-lies"
		if it.Row.Latest.Broken != wantBroken {
			t.Errorf("%s: row broken %v (%s), want %v", bc.Name, it.Row.Latest.Broken, it.Row.Latest.Problem, wantBroken)
		}
		if it.Err != nil {
			t.Errorf("%s: row error %v", bc.Name, it.Err)
		}
		var line string
		for _, l := range lines {
			if strings.Contains(l, " "+bc.Name+" ") && line == "" {
				line = l
			}
		}
		if line == "" {
			t.Errorf("%s has no line on screen:\n%s", bc.Name, scr)
			continue
		}
		if strings.Contains(line, "BROKEN") != wantBroken {
			t.Errorf("%s: its line %q marks it broken: %v, want %v", bc.Name, line, !wantBroken, wantBroken)
		}
	}

	// Open each release: its history and latest revision, then back.
	for _, bc := range cases {
		for i, idx := range rs.Shown {
			if rs.Items[idx].Row.Latest.Name == bc.Name {
				rs.Cursor = i
			}
		}
		h.press("enter")
		scr := h.screen()
		if _, ok := h.top().(*history.Screen); !ok {
			t.Errorf("%s: enter did not open the history:\n%s", bc.Name, scr)
			continue
		}
		h.press("enter")
		scr = h.screen()
		if strings.Contains(scr, badinput.PlantedSecret) || strings.Contains(scr, badinput.PlantedSecretBase64) {
			t.Errorf("%s: the revision shows payload data:\n%s", bc.Name, scr)
		}
		if !bc.Readable && !strings.Contains(scr, "cannot") {
			t.Errorf("%s: the revision screen does not say it cannot be read:\n%s", bc.Name, scr)
		}
		h.press("esc", "esc")
	}
}
