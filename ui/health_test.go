package ui

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/rowcheck"
	"github.com/chunkview/chunkview/ui/screens/history"
)

// TestRowBeingWrittenIsNotBroken: a record whose index was written a moment ago
// and whose chunk is not there yet (helm-operator-plugins writes the index first)
// shows as being written, not broken, and is checked again: healthy once the chunk
// has come.
func TestRowBeingWrittenIsNotBroken(t *testing.T) {
	old := rowcheck.RecheckDelay
	rowcheck.RecheckDelay = time.Millisecond
	defer func() { rowcheck.RecheckDelay = old }()
	f := newFixture(t)
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
	idx.Labels[storage.LabelModifiedAt] = strconv.FormatInt(testNow.Unix(), 10)
	if _, err := cs.Update(ctx, idx, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter")
	hs := h.top().(*history.Screen)
	r := hs.Latest()
	if r.Revision != 4 || !r.Writing || r.Broken {
		t.Fatalf("revision 4 mid-write: writing %v broken %v (%s)", r.Writing, r.Broken, r.Problem)
	}
	h.contains("◌ writing…").lacks("✗ BROKEN")
	h.press("V").contains("4 revisions verified: 1 being written, checked again shortly (4)")

	chunk.ResourceVersion, chunk.UID = "", ""
	if _, err := cs.Create(ctx, chunk, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.send(rowcheck.RecheckMsg{Ns: r.StorageNamespace, Key: r.Key, Rv: r.ResourceVersion})
	if r := hs.Latest(); r.Writing || r.Broken || !r.Checked {
		t.Fatalf("revision 4 rechecked once written: writing %v broken %v checked %v (%s)", r.Writing, r.Broken, r.Checked, r.Unchecked)
	}
	h.lacks("writing…", "✗ BROKEN")
}

// TestVerifyAlwaysSaysSo: V ends with a result line, healthy or not.
func TestVerifyAlwaysSaysSo(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter", "V").contains("4 revisions verified ✓")
	h.press("esc", "up", "up", "enter")
	if hs := h.top().(*history.Screen); hs.Name != "legacy" {
		t.Fatalf("opened %s, want legacy", hs.Name)
	}
	h.press("V").contains("2 revisions verified: ✗ 1 broken (2)")
	// On the list, V checks each release's latest revision, and says so: not
	// that the releases are verified, whose older revisions it did not read.
	h.press("esc", "home", "V")
	if !strings.Contains(h.screen(), "latest revisions verified") || !strings.Contains(h.screen(), "older revisions: V in a release's history") || strings.Contains(h.screen(), "releases verified") {
		t.Errorf("V on the release list claims more than it checked:\n%s", h.screen())
	}
}

// TestVerifyEndsAfterReload: the history is read again (new resourceVersions)
// while V's decodes are out; their answers, for rows no longer shown, still end V
// with its result line.
func TestVerifyEndsAfterReload(t *testing.T) {
	f := newFixture(t)
	h := newHarness(t, f.Client, Options{}, 120, 40)
	h.press("down", "down", "enter")
	hs := h.top().(*history.Screen)
	asked := append([]kube.RevisionRow(nil), hs.Rows...)
	hs.VerifyAll() // its decodes are answered below, by hand
	reloaded := append([]kube.RevisionRow(nil), asked...)
	for i := range reloaded {
		reloaded[i].ResourceVersion += "1"
	}
	hs.SetRows(reloaded)
	var text string
	for _, r := range asked {
		if cmd := hs.TakeRow(rowcheck.RowDetailsMsg{Ns: r.StorageNamespace, Key: r.Key, Rv: r.ResourceVersion, Row: r, Verified: true}); cmd != nil {
			text += statusText(cmd())
		}
	}
	if !strings.Contains(text, "verified") {
		t.Fatalf("V printed no result once the history was read again: %q", text)
	}
}

// statusText returns the status line text a message carries, batches included.
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
