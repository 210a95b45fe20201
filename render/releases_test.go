package render_test

import (
	"slices"
	"testing"
	"time"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/storage"
)

var (
	now    = time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	cli    = render.Options{Now: now}
	screen = render.Options{Now: now, Screen: true}
)

// row is a checked latest revision of web in team-a, its summary read.
func row(status string, mod func(*kube.RevisionRow)) kube.RevisionRow {
	r := kube.RevisionRow{
		Name: "web", StorageNamespace: "team-a", Revision: 7, Status: status, Driver: kube.DriverChunked,
		Updated: now.Add(-3 * time.Hour), Known: true, Checked: true, LimitBytes: 1000,
		Summary: storage.Summary{Chart: "web", ChartVersion: "1.2.0", AppVersion: "2.0", Chunks: 3, StoredBytes: 500, Description: "Upgrade\ncomplete"},
	}
	if mod != nil {
		mod(&r)
	}
	return r
}

func cellOf(t *testing.T, tb render.Table, col string) render.Cell {
	t.Helper()
	if tb.Index(col) < 0 {
		t.Fatalf("no column %s in %v", col, tb.Head())
	}
	return tb.Cell(0, col)
}

// TestReleaseTableMeanings: the cells that need attention say so, to both
// front ends: a failed release fails, a pending one warns, uninstalled is
// muted, one that cannot be read is broken (in HEALTH and CHART for the CLI,
// in STATUS for the screen, which has no HEALTH), one near its store's limit
// warns and one at 95% fails.
func TestReleaseTableMeanings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		row     kube.RevisionRow
		opts    render.Options
		col     string
		want    render.Cell
		wantRow string // the marked text a screen shows, when it matters
	}{
		{"failed", row("failed", nil), cli, "STATUS", render.Cell{Text: "failed", Meaning: render.Failed, Mark: "✗"}, "✗ failed"},
		{"deployed", row("deployed", nil), cli, "STATUS", render.Cell{Text: "deployed", Meaning: render.OK, Mark: "✓"}, "✓ deployed"},
		{"pending", row("pending-upgrade", nil), screen, "STATUS", render.Cell{Text: "pending-upgrade", Meaning: render.Warning, Mark: "◔"}, "◔ pending-upgrade"},
		{"uninstalled", row("uninstalled", nil), cli, "STATUS", render.Cell{Text: "uninstalled", Meaning: render.Muted, Mark: "·"}, "· uninstalled"},
		{"no status", row("", nil), cli, "STATUS", render.Cell{Text: "unknown", Mark: "?"}, "? unknown"},
		{"broken, cli health", row("deployed", func(r *kube.RevisionRow) { r.Broken, r.Checked = true, false }), cli, "HEALTH", render.Cell{Text: "broken", Meaning: render.Failed, Mark: "✗"}, ""},
		{"broken, cli chart", row("deployed", func(r *kube.RevisionRow) { r.Broken = true }), cli, "CHART", render.Cell{Text: "<broken>", Meaning: render.Failed}, ""},
		{"broken, screen state", row("deployed", func(r *kube.RevisionRow) { r.Broken = true }), screen, "STATUS", render.Cell{Text: "BROKEN", Meaning: render.Failed, Mark: "✗"}, "✗ BROKEN"},
		{"broken unread, screen chart", row("deployed", func(r *kube.RevisionRow) { r.Broken, r.Known = true, false }), screen, "CHART", render.Text("?"), ""},
		{"writing", row("deployed", func(r *kube.RevisionRow) { r.Checked, r.Writing = false, true }), screen, "STATUS", render.Cell{Text: "writing…", Meaning: render.Warning, Mark: "◌"}, "◌ writing…"},
		{"blocked", row("deployed", func(r *kube.RevisionRow) { r.PendingIndex = &kube.PendingIndex{Revision: 8} }), cli, "HEALTH", render.Cell{Text: "blocked", Meaning: render.Warning, Mark: "⚠"}, ""},
		{"unchecked", row("deployed", func(r *kube.RevisionRow) { r.Checked = false }), cli, "HEALTH", render.Cell{Text: "unchecked", Meaning: render.Muted}, ""},
		{"near the limit", row("deployed", func(r *kube.RevisionRow) { r.Summary.StoredBytes = 850 }), cli, "FILL", render.Cell{Text: "85%", Meaning: render.Warning, Mark: "⚠"}, ""},
		{"95% as shown", row("deployed", func(r *kube.RevisionRow) { r.Summary.StoredBytes = 949 }), screen, "FILL", render.Cell{Text: "95%", Meaning: render.Failed, Mark: "✗"}, ""},
		{"far from it", row("deployed", nil), cli, "FILL", render.Text("50%"), ""},
		{"no limit, cli", row("deployed", func(r *kube.RevisionRow) { r.LimitBytes = 0 }), cli, "FILL", render.Cell{Text: "-", Meaning: render.Muted}, ""},
		{"no limit, screen", row("deployed", func(r *kube.RevisionRow) { r.LimitBytes = 0 }), screen, "FILL", render.Cell{Text: "no limit", Meaning: render.Muted}, ""},
	} {
		tb := render.ReleaseTable([]kube.ReleaseRow{{Latest: tc.row, Revisions: 7}}, tc.opts)
		got := cellOf(t, tb, tc.col)
		if got != tc.want {
			t.Errorf("%s: %s = %+v, want %+v", tc.name, tc.col, got, tc.want)
		}
		if tc.wantRow != "" && got.Marked() != tc.wantRow {
			t.Errorf("%s: marked %q, want %q", tc.name, got.Marked(), tc.wantRow)
		}
	}
}

// TestReleaseTableSharedText: what both front ends show of a release reads
// the same in both; they differ only where the screen says less (STORAGE NS
// "·") or is still reading ("…" where the CLI says "?").
func TestReleaseTableSharedText(t *testing.T) {
	rows := []kube.ReleaseRow{{Latest: row("deployed", func(r *kube.RevisionRow) { r.Driver = kube.DriverSecret }), Revisions: 7}}
	c, s := render.ReleaseTable(rows, cli), render.ReleaseTable(rows, screen)
	for _, col := range []string{"NAME", "NAMESPACE", "REVISION", "STATUS", "CHART", "APP VERSION", "UPDATED", "FILL", "STORE", "CHUNKS", "SIZE", "HISTORY"} {
		if a, b := cellOf(t, c, col), cellOf(t, s, col); a != b {
			t.Errorf("%s: CLI %+v, screen %+v", col, a, b)
		}
	}
	want := []string{"web", "team-a", "team-a", "7", "deployed", "web-1.2.0", "2.0", "3h", "ok", "50%", "secret", "-", "500 B", "7", "≥500 B", "2026-12-02 11:00:00 UTC"}
	if got := c.Texts()[0]; !slices.Equal(got, want) {
		t.Errorf("CLI row %q, want %q", got, want)
	}
	if got := cellOf(t, s, "STORAGE NS"); got != (render.Cell{Text: "·", Meaning: render.Muted}) {
		t.Errorf("screen STORAGE NS %+v, want a muted ·", got)
	}
	unread := []kube.ReleaseRow{{Latest: kube.RevisionRow{Name: "web", StorageNamespace: "team-a", Status: "deployed"}}}
	for _, col := range []string{"CHART", "APP VERSION", "CHUNKS"} {
		if a, b := cellOf(t, render.ReleaseTable(unread, cli), col).Text, cellOf(t, render.ReleaseTable(unread, screen), col).Text; a != "?" || b != "…" {
			t.Errorf("%s of an unread summary: CLI %q, screen %q, want ? and …", col, a, b)
		}
	}
	if got := render.ReleaseTable(rows, cli).Select("STATUS", "NAME", "NOPE"); !slices.Equal(got.Head(), []string{"STATUS", "NAME"}) || !slices.Equal(got.Texts()[0], []string{"deployed", "web"}) {
		t.Errorf("Select: %v %v", got.Head(), got.Texts())
	}
}

// TestReleaseTablePendingIndex: a release with nothing but an interrupted
// create's pending index has no chart to show, and is blocked.
func TestReleaseTablePendingIndex(t *testing.T) {
	r := kube.RevisionRow{Name: "web", StorageNamespace: "team-a", Status: "pending-index", PendingIndex: &kube.PendingIndex{Revision: 1}}
	tb := render.ReleaseTable([]kube.ReleaseRow{{Latest: r}}, cli).Select("CHART", "APP VERSION", "CHUNKS", "HEALTH")
	if got := tb.Texts()[0]; !slices.Equal(got, []string{"-", "-", "-", "blocked"}) {
		t.Errorf("pending index alone: %q", got)
	}
	if got := render.RevisionState(r).Marked(); got != "⚠ blocked" {
		t.Errorf("screen state %q, want ⚠ blocked", got)
	}
}

// TestScreenSize: a row peeked from its index shows its size when it is one
// chunk, and '-', not "0 B", when it spans more; a row not known yet shows a
// placeholder.
func TestScreenSize(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  kube.RevisionRow
		want string
	}{
		{"decoded", kube.RevisionRow{Known: true, Summary: storage.Summary{StoredBytes: 2048, Chunks: 2}}, "2.0 KiB"},
		{"peeked, one chunk", kube.RevisionRow{Known: true, Peeked: true, Summary: storage.Summary{StoredBytes: 900, Chunks: 1}}, "900 B"},
		{"peeked, chunks", kube.RevisionRow{Known: true, Peeked: true, StoredAtMost: 3072, Summary: storage.Summary{Chunks: 3}}, "-"},
		{"not known yet", kube.RevisionRow{}, "…"},
		{"broken", kube.RevisionRow{Broken: true}, "?"},
	} {
		if got := render.ReleaseTable([]kube.ReleaseRow{{Latest: tc.row}}, screen).Cell(0, "SIZE").Text; got != tc.want {
			t.Errorf("%s: SIZE = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestHistoryTable: a superseded revision is muted, the deployed one well; a
// broken one fails and says why in DESCRIPTION (the CLI's whole, the
// screen's on one line); one not checked says why to the CLI.
func TestHistoryTable(t *testing.T) {
	rows := []kube.RevisionRow{
		row("superseded", func(r *kube.RevisionRow) { r.Revision = 5 }),
		row("deployed", func(r *kube.RevisionRow) { r.Revision = 6; r.Checked, r.Unchecked = false, "forbidden" }),
		row("failed", func(r *kube.RevisionRow) { r.Revision = 7; r.Broken, r.Problem = true, "chunk 2 of 3\nmissing" }),
	}
	c, s := render.HistoryTable(rows, cli), render.HistoryTable(rows, screen)
	if got := c.Cell(0, "STATUS"); got != (render.Cell{Text: "superseded", Meaning: render.Muted, Mark: "·"}) {
		t.Errorf("superseded %+v", got)
	}
	if got := s.Cell(0, "STATUS").Marked(); got != "· superseded" {
		t.Errorf("screen superseded %q", got)
	}
	if got := c.Cell(1, "STATUS"); got.Meaning != render.OK {
		t.Errorf("deployed %+v", got)
	}
	if got := c.Cell(1, "DESCRIPTION"); got != (render.Cell{Text: "not checked: forbidden", Meaning: render.Muted}) {
		t.Errorf("unchecked description %+v", got)
	}
	if got := c.Cell(2, "DESCRIPTION"); got != (render.Cell{Text: "cannot be read: chunk 2 of 3\nmissing", Meaning: render.Failed}) {
		t.Errorf("broken description %+v", got)
	}
	if got := s.Cell(2, "DESCRIPTION"); got != (render.Cell{Text: "chunk 2 of 3 missing", Meaning: render.Failed}) {
		t.Errorf("screen broken description %+v", got)
	}
	if got := c.Select("CHART", "APP VERSION", "CHUNKS", "HEALTH").Texts()[2]; !slices.Equal(got, []string{"<broken>", "-", "-", "broken"}) {
		t.Errorf("broken CLI cells %q", got)
	}
	if got, want := s.Cell(0, "DESCRIPTION").Text, "Upgrade complete"; got != want {
		t.Errorf("screen description %q, want %q", got, want)
	}
	for _, col := range []string{"REVISION", "CHART", "APP VERSION", "CHUNKS", "SIZE", "AGE", "UPDATED"} {
		if a, b := c.Cell(0, col), s.Cell(0, col); a != b {
			t.Errorf("%s: CLI %+v, screen %+v", col, a, b)
		}
	}
}
