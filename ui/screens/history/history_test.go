package history

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"helm.sh/helm/v3/pkg/release"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

func TestMain(m *testing.M) { screentest.Main(m) }

// open opens the history of release name in default through client, and waits
// until it is read.
func open(t testing.TB, client *kube.Client, name string, w, h int) (*Screen, *screentest.Harness) {
	t.Helper()
	s := New(screentest.Common(client), "default", name)
	return s, screentest.New(t, s, w, h)
}

// TestGolden draws the history at 80x24 and 120x40: a healthy release and its
// trend, a revision marked, a broken and a stuck release, read-only, the owner
// and the controller, a Helm store's forecast, and each operation's dialog.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name, rel string
		readOnly  bool
		steps     func(h *screentest.Harness, f *screentest.Fixture)
	}{
		{name: "web", rel: "web"},
		{name: "marked", rel: "web", steps: func(h *screentest.Harness, _ *screentest.Fixture) { h.Press("up", "up", "space", "down") }},
		{name: "first_revision", rel: "web", steps: func(h *screentest.Harness, _ *screentest.Fixture) { h.Press("home") }},
		{name: "broken", rel: "legacy"},
		{name: "stuck", rel: "worker"},
		{name: "read_only", rel: "worker", readOnly: true},
		{name: "olmv1", rel: "web", steps: func(h *screentest.Harness, _ *screentest.Fixture) {
			h.Send(ExtensionMsg{Ns: "default", Name: "web", Ext: screentest.OLMExtension})
		}},
		{name: "flux", rel: "web", steps: func(h *screentest.Harness, _ *screentest.Fixture) {
			h.Send(ControllerMsg{Ns: "default", Name: "web", Ctl: &kube.Controller{Kind: kube.KindHelmRelease, Namespace: "flux-apps", Name: "web", Ready: "True", LastAttempted: "1.4.0"}})
		}},
		{name: "dialog_uninstall", rel: "web", steps: func(h *screentest.Harness, _ *screentest.Fixture) { h.Press("U").Type("we") }},
		{name: "dialog_prune", rel: "web", steps: func(h *screentest.Harness, _ *screentest.Fixture) { h.Press("P", "down") }},
		{name: "dialog_delete_broken", rel: "legacy", steps: func(h *screentest.Harness, _ *screentest.Fixture) { h.Press("X") }},
		{name: "dialog_fix_stuck", rel: "worker", steps: func(h *screentest.Harness, _ *screentest.Fixture) { h.Press("F") }},
		{name: "dialog_fix_stuck_done", rel: "worker", steps: func(h *screentest.Harness, _ *screentest.Fixture) { h.Press("F", "down", "y") }},
		{name: "dialog_denied", rel: "worker", steps: func(h *screentest.Harness, f *screentest.Fixture) {
			f.Cluster.Authorize(screentest.AllowSecrets("default", "get", "list"))
			h.Press("r", "U")
		}},
	} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz[0], sz[1]), func(t *testing.T) {
				f := screentest.NewFixture(t)
				if c.name == "olmv1" {
					f.MarkOLMv1("web")
				}
				client := f.Client
				if c.readOnly {
					client = f.ReadOnly()
				}
				_, h := open(t, client, c.rel, sz[0], sz[1])
				if c.steps != nil {
					c.steps(h, f)
				}
				h.Golden()
			})
		}
	}
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("secret_forecast/%dx%d", sz[0], sz[1]), func(t *testing.T) {
			rows := screentest.LokiHistory()
			_, h := open(t, screentest.NewFixture(t).Client.WithDrivers(kube.DriverSecret), "loki-stack", sz[0], sz[1])
			h.Send(LoadedMsg{Ns: "default", Name: "loki-stack", Rows: rows})
			h.Golden()
		})
	}
}

// TestKeys: the history opens on the latest revision; R on it applies it again,
// d compares with the one before or the one marked, and the first has nothing
// before it; enter, s, c and L open the revision, its status, its layout and its
// live diff.
func TestKeys(t *testing.T) {
	s, h := open(t, screentest.NewFixture(t).Client, "web", 120, 37)
	if got := s.selected().Revision; got != 4 {
		t.Fatalf("history opens on revision %d, want the latest (4)", got)
	}
	for _, c := range []struct {
		keys []string
		want string
	}{
		{[]string{"R"}, "roll back to 4"},
		{[]string{"d"}, "diff 3→4"},
		{[]string{"home", "space", "end", "d"}, "diff 1→4"},
		{[]string{"space", "up", "enter"}, "revision 3"},
		{[]string{"s"}, "status of revision 3"},
		{[]string{"c"}, "chunks of revision 3"},
		{[]string{"L"}, "diff 3→live"},
	} {
		h.Forget().Press(c.keys...)
		if got := h.Pushed(); got == nil || got.Title() != c.want {
			t.Fatalf("%v opened %v, want %q", c.keys, got, c.want)
		}
	}
	// The first revision has nothing before it, unmarked or marked itself.
	_, h = open(t, screentest.NewFixture(t).Client, "web", 120, 37)
	for _, keys := range [][]string{{"home", "d"}, {"space", "d"}} {
		h.Forget().Press(keys...)
		if st, isErr := h.Status(); h.Pushed() != nil || !isErr || !strings.Contains(st, "nothing before it") {
			t.Fatalf("%v on the first revision: opened %v, status %q", keys, h.Pushed(), st)
		}
	}
}

// TestIgnoresOtherReleases: the history takes only its release's listing, and
// says why it has none when the listing failed.
func TestIgnoresOtherReleases(t *testing.T) {
	s, h := open(t, screentest.NewFixture(t).Client, "web", 120, 37)
	s.loaded, s.rows = false, nil
	h.Send(LoadedMsg{Ns: "default", Name: "worker", Rows: []kube.RevisionRow{{Name: "worker", Revision: 9}}})
	if s.loaded {
		t.Fatal("the history of another release was taken")
	}
	h.Send(LoadedMsg{Ns: "default", Name: "web", Err: kube.Explain(errors.New("nope"), "list", "secrets", "default")})
	if s.loaded || s.err == nil || !strings.Contains(ansi.Strip(s.View()), "nope") {
		t.Fatalf("the error was not shown:\n%s", s.View())
	}
}

// TestReadOnlyHidesActions: under --read-only no action key does anything, and
// none is offered.
func TestReadOnlyHidesActions(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := open(t, f.ReadOnly(), "worker", 120, 37)
	h.Lacks("R roll back", "X delete", "U uninstall", "F fix stuck")
	h.Press("F", "X", "U", "P", "up", "R")
	if s.confirm != nil || h.Pushed() != nil {
		t.Fatalf("an action key did something in read-only mode: dialog %v, opened %v", s.confirm != nil, h.Pushed())
	}
	if n := f.Cluster.Writes(); n != 0 {
		t.Fatalf("read-only mode wrote %d times", n)
	}
}

// TestTypedConfirmation: uninstall wants the release's name typed exactly; while
// the field is open the screen takes every key; esc closes the dialog; once
// uninstalled, closing the dialog closes the history, saying so.
func TestTypedConfirmation(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := open(t, f.Client, "web", 120, 37)
	h.Press("U").Type("wbe").Press("enter")
	h.Contains(`Type "web" exactly to confirm`)
	if n := f.Cluster.Writes(); n != 0 {
		t.Fatalf("a wrong name went ahead: %d writes", n)
	}
	if !s.Capturing() || !s.HandlesBack() || !s.HasTypedInput() {
		t.Fatal("the open field does not take the keys")
	}
	h.Press("esc")
	if s.confirm != nil {
		t.Fatal("esc did not close the dialog")
	}
	h.Press("U").Type("web").Press("enter").Contains("✓ Uninstalled web")
	h.Press("enter")
	if st, ok := h.Popped(); !ok || st != "Uninstalled web." {
		t.Fatalf("closing the dialog after the uninstall: popped %v, status %q", ok, st)
	}
}

// TestActionErrorShownInPlace: an operation that fails says why in its dialog,
// which stays until closed; the history stays.
func TestActionErrorShownInPlace(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := open(t, f.Client, "worker", 120, 37)
	h.Press("F")
	f.Cluster.FailRequest("", 1, kube.ErrReadOnly)
	h.Press("y").Contains("✗ Read-only")
	if s.confirm == nil || s.confirm.State() != dialog.Done {
		t.Fatal("the failed fix did not stay in its dialog")
	}
	h.Press("enter")
	if _, popped := h.Popped(); popped || s.confirm != nil {
		t.Fatal("closing a failed dialog left the history, or did not close")
	}
}

// TestPendingInProgressIsNotStuck: a revision pending for less than the stuck
// threshold (here 4h, worker's has been pending 3h) is an operation in progress:
// the history says so and does not offer the fixes yet; F still opens them,
// warning that the operation is probably running.
func TestPendingInProgressIsNotStuck(t *testing.T) {
	f := screentest.NewFixture(t)
	cfg := screentest.Config()
	cfg.StuckAfter = 4 * time.Hour
	client := kube.New(f.Cluster.Clientset(), f.Cluster.Metadata(), demo.DiscardKubeClients, cfg)
	_, h := open(t, client, "worker", 120, 37)
	h.Contains("pending-upgrade for 3h: an operation is in progress").Lacks("F: ways out")
	h.Press("F").Contains("less than 4h", "probably still running")
	_, h = open(t, f.Client, "worker", 120, 37)
	h.Contains("F: ways out")
}

// TestShowsHelmRelease: a release a Flux HelmRelease manages says so above the
// history, with its Ready condition and whether it is suspended; while it is
// not, that the operations are refused and how to suspend it.
func TestShowsHelmRelease(t *testing.T) {
	_, h := open(t, screentest.NewFixture(t).Client, "web", 120, 37)
	ctl := &kube.Controller{Kind: kube.KindHelmRelease, Namespace: "flux-apps", Name: "web", Ready: "True", LastAttempted: "1.4.0"}
	h.Send(ControllerMsg{Ns: "default", Name: "web", Ctl: ctl})
	h.Contains("Managed by HelmRelease/flux-apps/web · Ready True · not suspended · last attempted 1.4.0",
		"R, X, U and F are refused while Flux reconciles it: flux suspend helmrelease web -n flux-apps")
	suspended := *ctl
	suspended.Suspended = true
	h.Send(ControllerMsg{Ns: "default", Name: "web", Ctl: &suspended})
	h.Contains("Ready True · suspended").Lacks("are refused while Flux")
}

// TestShowsTheOwner: the history names the ClusterExtension that owns the
// release, from metadata; what OLMv1 says of it comes in when read.
func TestShowsTheOwner(t *testing.T) {
	f := screentest.NewFixture(t)
	f.MarkOLMv1("web")
	_, h := open(t, f.Client, "web", 120, 37)
	h.Contains("Owner ClusterExtension/web · bundle web.v1.4.0")
	h.Send(ExtensionMsg{Ns: "default", Name: "web", Ext: screentest.OLMExtension})
	h.Contains("installed web.v1.4.0 (1.4.0)", "Installed True (Succeeded) · Progressing False (Blocked)", "ClusterObjectSet web-7 (newest of 2) now holds web")
	h.Send(ExtensionMsg{Ns: "default", Name: "web", Ext: &kube.ClusterExtension{Name: "web", Unreadable: "forbidden (kubectl auth can-i get clusterextensions.olm.operatorframework.io)"}})
	h.Contains("ClusterExtension not readable: forbidden")
}

// TestPruneDialog: P offers to keep the newest revisions, each choice saying
// what goes and the bytes freed; the release's name typed, the records of the
// oldest go and the history shows the rest.
func TestPruneDialog(t *testing.T) {
	s, h := open(t, screentest.NewFixture(t).Client, "web", 120, 37)
	if len(s.rows) != 4 {
		t.Fatalf("web has %d revisions, want 4", len(s.rows))
	}
	h.Press("P").Contains("Prune web", "Keep the newest 3 (delete 1)", "Keep the newest 1 (delete 3)", "freeing", "Type the release name (web) to confirm:")
	h.Press("down").Contains("▶ 2. Keep the newest 1 (delete 3)", "keeps 4.")
	h.Type("web").Press("enter").Contains("Pruned web: deleted 3 revision records, kept 1.")
	h.Press("enter")
	if got := len(s.rows); got != 1 || s.rows[0].Revision != 4 {
		t.Fatalf("history after the prune: %d rows (%+v)", got, s.rows)
	}
}

// TestDialogsKeepTheirButtons: a dialog never loses its bottom border or its
// question, however little room there is: its text gives way, marked with "…",
// and follows the selected choice.
func TestDialogsKeepTheirButtons(t *testing.T) {
	f := screentest.NewFixture(t)
	for _, sz := range [][2]int{{60, 9}, {60, 12}, {80, 21}} {
		_, h := open(t, f.Client, "worker", sz[0], sz[1])
		h.Press("F")
		h.Contains("Proceed? y: yes · esc: cancel", "╰", "1. Mark revision")
		if sz[1] < 21 {
			h.Contains("…")
		}
		h.Press("down").Contains("▶ 2. Delete revision", "Proceed? y: yes · esc: cancel", "╰")

		_, h = open(t, f.Client, "web", sz[0], sz[1])
		h.Press("U").Contains("Type the release name (web) to confirm:", "╰")
	}
}

// TestDialogsNameTheCluster: every dialog that changes the cluster says which
// context and namespace it changes.
func TestDialogsNameTheCluster(t *testing.T) {
	f := screentest.NewFixture(t)
	for _, c := range []struct{ rel, key string }{{"web", "U"}, {"legacy", "X"}, {"worker", "F"}, {"web", "P"}} {
		cm := screentest.Common(f.Client)
		cm.KubeContext = "prod"
		h := screentest.New(t, New(cm, "default", c.rel), 120, 37)
		h.Press(c.key).Contains("context prod · namespace default")
	}
}

// TestRowBeingWrittenIsNotBroken: a record whose index was written a moment ago
// and whose chunk is not there yet (helm-operator-plugins writes the index first)
// shows as being written, not broken, and is checked again: healthy once the chunk
// has come.
func TestRowBeingWrittenIsNotBroken(t *testing.T) {
	old := rowcheck.RecheckDelay
	rowcheck.RecheckDelay = time.Millisecond
	defer func() { rowcheck.RecheckDelay = old }()
	f := screentest.NewFixture(t)
	ctx := context.Background()
	cs := f.Cluster.Clientset().CoreV1().Secrets("default")
	key := storage.RecordKey("web", 4)
	names := f.ChunkNames(t, "default", key)
	chunk, err := cs.Get(ctx, names[len(names)-1], metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.DeleteLastChunk(t, "default", key)
	idx, err := cs.Get(ctx, key, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	idx.Labels[storage.LabelModifiedAt] = strconv.FormatInt(screentest.Now.Unix(), 10)
	if _, err := cs.Update(ctx, idx, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	s, h := open(t, f.Client, "web", 120, 37)
	r := s.latest()
	if r.Revision != 4 || !r.Writing || r.Broken {
		t.Fatalf("revision 4 mid-write: writing %v broken %v (%s)", r.Writing, r.Broken, r.Problem)
	}
	h.Contains("◌ writing…").Lacks("✗ BROKEN")
	h.Press("V")
	if st, _ := h.Status(); st != "4 revisions verified: 1 being written, checked again shortly (4)" {
		t.Errorf("V says %q", st)
	}

	chunk.ResourceVersion, chunk.UID = "", ""
	if _, err := cs.Create(ctx, chunk, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.Send(rowcheck.RecheckMsg{Ns: r.StorageNamespace, Key: r.Key, Rv: r.ResourceVersion})
	if r := s.latest(); r.Writing || r.Broken || !r.Checked {
		t.Fatalf("revision 4 rechecked once written: writing %v broken %v checked %v (%s)", r.Writing, r.Broken, r.Checked, r.Unchecked)
	}
	h.Lacks("writing…", "✗ BROKEN")
}

// TestVerifySaysSo: V ends with its result line, healthy or not.
func TestVerifySaysSo(t *testing.T) {
	f := screentest.NewFixture(t)
	_, h := open(t, f.Client, "web", 120, 37)
	h.Press("V")
	if st, isErr := h.Status(); st != "4 revisions verified ✓" || isErr {
		t.Errorf("V on web: %q", st)
	}
	_, h = open(t, f.Client, "legacy", 120, 37)
	h.Press("V")
	if st, isErr := h.Status(); st != "2 revisions verified: ✗ 1 broken (2)" || !isErr {
		t.Errorf("V on legacy: %q", st)
	}
}

// TestVerifyEndsAfterReload: the history is read again (new resourceVersions)
// while V's decodes are out; their answers, for rows no longer shown, still end V
// with its result line.
func TestVerifyEndsAfterReload(t *testing.T) {
	s, _ := open(t, screentest.NewFixture(t).Client, "web", 120, 37)
	asked := append([]kube.RevisionRow(nil), s.rows...)
	s.verifyAll() // its decodes are answered below, by hand
	reloaded := append([]kube.RevisionRow(nil), asked...)
	for i := range reloaded {
		reloaded[i].ResourceVersion += "1"
	}
	s.setRows(reloaded)
	var text string
	for _, r := range asked {
		if cmd := s.takeRow(rowcheck.RowDetailsMsg{Ns: r.StorageNamespace, Key: r.Key, Rv: r.ResourceVersion, Row: r, Verified: true}); cmd != nil {
			text += statusText(cmd())
		}
	}
	if !strings.Contains(text, "verified") {
		t.Fatalf("V printed no result once the history was read again: %q", text)
	}
}

// statusText is the status line msg puts up, "" when none.
func statusText(msg tea.Msg) string {
	switch m := msg.(type) {
	case common.StatusMsg:
		return m.Text
	case tea.BatchMsg:
		var out string
		for _, c := range m {
			if c != nil {
				out += statusText(c())
			}
		}
		return out
	}
	return ""
}

// TestStaleDialogRefusedAndReloaded: a dialog holds the history it was opened
// on. When the release moves on before the user confirms, the operation is refused
// with nothing written, the dialog says why, and the history is read again.
func TestStaleDialogRefusedAndReloaded(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := open(t, f.Client, "web", 120, 37)
	h.Press("up", "X")
	if s.confirm == nil || len(s.rows) != 4 {
		t.Fatalf("no delete dialog over 4 revisions: %v", s.confirm != nil)
	}
	f.MoveWeb(t)
	writes := f.Cluster.Writes()
	h.Type("web").Press("enter")
	h.Contains("changed while you were looking", "revision 5 (deployed) was added", "Nothing was changed")
	if n := f.Cluster.Writes() - writes; n != 0 {
		t.Fatalf("a refused delete wrote %d times", n)
	}
	if len(s.rows) != 5 || s.latest().Revision != 5 {
		t.Fatalf("the history was not read again: %d rows", len(s.rows))
	}
	if s.confirm == nil || s.confirm.State() != dialog.Done {
		t.Fatal("the refusal did not stay in its dialog")
	}
}

// TestLiveHistory: the open history takes a new revision of its release from the
// watch, selected when the latest was, then its status change; events of other
// releases are not its.
func TestLiveHistory(t *testing.T) {
	f := screentest.NewFixture(t)
	s, h := open(t, f.Client, "web", 120, 37)
	drv := storage.NewDriver(f.Cluster.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, storage.ChunkedSecretsConfig{ChunkSize: screentest.ChunkSize})
	rel := screentest.WebRelease(5, release.StatusPendingUpgrade)
	if err := drv.Create(storage.RecordKey("web", 5), rel); err != nil {
		t.Fatal(err)
	}
	// The watch's event for a record is its listing's row.
	event := func(name string, rev int) kube.WatchEvent {
		rows, err := f.Client.History(context.Background(), "default", name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Revision == rev {
				return kube.WatchEvent{Type: kube.WatchChanged, Row: r}
			}
		}
		t.Fatalf("%s has no revision %d", name, rev)
		return kube.WatchEvent{}
	}
	h.Send(common.LiveMsg{Ev: event("worker", 2)})
	if len(s.rows) != 4 {
		t.Fatalf("an event of worker changed web's history: %d rows", len(s.rows))
	}
	h.Send(common.LiveMsg{Ev: event("web", 5)})
	if l := s.latest(); l.Revision != 5 || l.Status != "pending-upgrade" || s.selected().Revision != 5 {
		t.Errorf("latest %d %s, selected %d", l.Revision, l.Status, s.selected().Revision)
	}
	rel.Info.Status = release.StatusDeployed
	if err := drv.Update(storage.RecordKey("web", 5), rel); err != nil {
		t.Fatal(err)
	}
	h.Send(common.LiveMsg{Ev: event("web", 5)})
	if l := s.latest(); l.Status != "deployed" || len(s.rows) != 5 {
		t.Errorf("after the status change: latest %s, %d rows", l.Status, len(s.rows))
	}
	h.Contains("✓ deployed")
}

// TestColumnsGiveWay: the growth bar is the first of the history's columns to go
// when room runs short, before the app version.
func TestColumnsGiveWay(t *testing.T) {
	for w := 120; w >= 40; w-- {
		var titles []string
		for _, c := range table.FitColumns(chunkedColumns, w) {
			titles = append(titles, c.Title)
		}
		got := strings.Join(titles, ",")
		if strings.Contains(got, "GROWTH") && !strings.Contains(got, "APP") {
			t.Errorf("at %d, the bar outlived the app version: %s", w, got)
		}
	}
}

// TestMarkGoesWithItsRevision: a mark does not outlive the revision it marked:
// it goes when the revision is no longer listed, and when its number is listed
// for another record (deployed at another time, as a rollback past an
// unreadable revision writes it); a status change of the record keeps it.
func TestMarkGoesWithItsRevision(t *testing.T) {
	s, h := open(t, screentest.NewFixture(t).Client, "web", 120, 37)
	h.Press("home", "down", "space")
	if s.mark != 2 {
		t.Fatalf("space on revision 2 marked %d", s.mark)
	}
	rows := append([]kube.RevisionRow(nil), s.rows...)
	rows[1].Status, rows[1].ResourceVersion = "failed", rows[1].ResourceVersion+"1"
	s.setRows(append([]kube.RevisionRow(nil), rows...))
	if s.mark != 2 {
		t.Fatalf("a status change of revision 2 dropped its mark (%d)", s.mark)
	}
	h.Contains("◆ revision 2 marked")

	rows[1].Updated, rows[1].ResourceVersion = rows[1].Updated.Add(time.Hour), rows[1].ResourceVersion+"2"
	s.setRows(append([]kube.RevisionRow(nil), rows...))
	if s.mark != 0 {
		t.Errorf("revision 2 written anew kept the mark of the record before it")
	}

	h.Press("space")
	if s.mark != 2 {
		t.Fatalf("space marked %d", s.mark)
	}
	s.setRows(append(append([]kube.RevisionRow(nil), rows[:1]...), rows[2:]...))
	if s.mark != 0 {
		t.Errorf("the mark of revision 2 outlived its record")
	}
	h.Lacks("◆ revision 2 marked", "◆")
}
