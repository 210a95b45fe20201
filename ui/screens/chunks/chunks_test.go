package chunks

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/internal/screentest"
	"github.com/chunkview/chunkview/ui/theme"
)

func TestMain(m *testing.M) { screentest.Main(m) }

// sizes are the sizes every screen's golden files are drawn at: the smallest
// supported and a roomy one.
var sizes = [][2]int{{80, 24}, {120, 40}}

// revisionRow is the listed row of revision rev of release name in ns.
func revisionRow(t testing.TB, f *screentest.Fixture, ns, name string, rev int) kube.RevisionRow {
	t.Helper()
	rows, err := f.Client.WithNamespace(ns, false).History(context.Background(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Revision == rev {
			return r
		}
	}
	t.Fatalf("%s/%s has no revision %d", ns, name, rev)
	return kube.RevisionRow{}
}

// TestGolden draws the layouts of the fixture's records, healthy and broken, and
// a Helm record's, at 80x24 and 120x40.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name          string
		ns, rel       string
		rev           int
		named, scroll bool
	}{
		{name: "chunked", ns: "default", rel: "web", rev: 4},
		{name: "chunked_scrolled", ns: "default", rel: "web", rev: 4, scroll: true},
		{name: "missing", ns: "default", rel: "legacy", rev: 2, named: true},
		{name: "orphan", ns: "default", rel: "legacy", rev: 1},
		{name: "corrupt", ns: "shop", rel: "cache", rev: 1},
	} {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz[0], sz[1]), func(t *testing.T) {
				f := screentest.NewFixture(t)
				row := revisionRow(t, f, c.ns, c.rel, c.rev)
				s := New(screentest.Common(f.Client.WithNamespace(c.ns, false)), row)
				s.Named = c.named
				h := screentest.New(t, s, sz[0], sz[1])
				if c.scroll {
					h.Press("pgdown")
				}
				h.Golden()
			})
		}
	}
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("helm_record/%dx%d", sz[0], sz[1]), func(t *testing.T) {
			row := screentest.LokiHistory()[5]
			s := New(screentest.Common(screentest.NewFixture(t).Client.WithDrivers(kube.DriverSecret)), row)
			// The demo holds no Helm record: the layout kube would read is
			// handed over as the answer of its load.
			h := screentest.New(t, s, sz[0], sz[1])
			h.Send(LayoutLoadedMsg{Ns: row.StorageNamespace, Name: row.Name, Rev: row.Revision, Layout: screentest.LokiLayout()})
			h.Golden()
		})
	}
}

// TestTitleNamesTheRecord: the breadcrumb says chunks or record by store, and
// names the release when the screen below it does not.
func TestTitleNamesTheRecord(t *testing.T) {
	c := screentest.Common(screentest.NewFixture(t).Client)
	row := screentest.StoreRow(kube.DriverChunked, "web", 4, 0.5)
	if got := New(c, row).Title(); got != "chunks of revision 4" {
		t.Errorf("title %q", got)
	}
	s := New(c, screentest.StoreRow(kube.DriverConfigMap, "web", 4, 0.5))
	s.Named = true
	if got := s.Title(); got != "web › record of revision 4" {
		t.Errorf("title of a named Helm record %q", got)
	}
}

func TestChunkStatesReadWithoutColour(t *testing.T) {
	st := theme.DefaultStyles()
	l := &storage.Layout{
		Key: "sh.helm.release.v1.x.v1", Release: "x", Revision: 1,
		Index: storage.SecretInfo{Name: "sh.helm.release.v1.x.v1", Role: storage.TypeIndex, Bytes: 1000, Share: 0.5, State: storage.StateOK},
		Chunks: []storage.SecretInfo{
			{Name: "sh.helm.release.v1.x.v1-aaaa", Role: storage.TypeChunk, State: storage.StateMissing, Detail: "chunk 2 of 4 does not exist"},
			{Name: "sh.helm.release.v1.x.v1-bbbb", Role: storage.TypeChunk, Bytes: 10, State: storage.StateCorrupt, Detail: "bytes do not match"},
			{Name: "sh.helm.release.v1.x.v1-cccc", Role: storage.TypeChunk, Bytes: 10, State: storage.StateWrongTyp, Detail: "type Opaque"},
		},
		Orphans:     []storage.SecretInfo{{Name: "sh.helm.release.v1.x.v1-dddd", Role: storage.TypeChunk, State: storage.StateOrphan}},
		DecodeError: "corrupt release record: chunk missing",
	}
	out := ansi.Strip(renderLayout(&st, l, time.Now(), 120))
	for _, want := range []string{"✗ missing", "✗ corrupt", "✗ wrong-type", "! orphan", "(does not exist)", "cannot be read", formatExplainer[:40]} {
		if !strings.Contains(out, want) {
			t.Errorf("layout lacks %q:\n%s", want, out)
		}
	}
}

// TestLayoutSaysWhatTheCLISays: each Secret's line on the screen carries the
// words `inspect` prints for it (render.LayoutTable), with their signs: its
// role, its hash and owner checks, its state and its age.
func TestLayoutSaysWhatTheCLISays(t *testing.T) {
	st := theme.DefaultStyles()
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	l := &storage.Layout{
		Key: "sh.helm.release.v1.x.v1", Release: "x", Revision: 1,
		Index: storage.SecretInfo{Name: "sh.helm.release.v1.x.v1", Role: storage.TypeIndex, Bytes: 1000, Share: 0.5, State: storage.StateOK, Created: now.Add(-26 * time.Hour)},
		Chunks: []storage.SecretInfo{
			{Name: "sh.helm.release.v1.x.v1-aaaa", Role: storage.TypeChunk, Bytes: 10, HashOK: true, Owned: false, State: storage.StateOK, Created: now.Add(-3 * time.Hour)},
			{Name: "sh.helm.release.v1.x.v1-bbbb", Role: storage.TypeChunk, Bytes: 10, HashOK: false, Owned: true, State: storage.StateCorrupt, Created: now.Add(-5 * time.Minute)},
		},
	}
	lines := strings.Split(ansi.Strip(renderLayout(&st, l, now, 160)), "\n")
	tb := render.LayoutTable(l, kube.DriverChunked, render.Options{Now: now})
	for i, r := range render.LayoutRows(l) {
		var line string
		for _, ln := range lines {
			if strings.HasPrefix(strings.TrimSpace(ln), r.Info.Name+" ") {
				line = ln
			}
		}
		if line == "" {
			t.Fatalf("no line for %s in:\n%s", r.Info.Name, strings.Join(lines, "\n"))
		}
		for _, col := range []string{render.LayoutRole, render.LayoutHash, render.LayoutOwner, render.LayoutState, render.LayoutAge} {
			if want := tb.Cell(i, col).Marked(); !strings.Contains(line, want) {
				t.Errorf("%s's line lacks its %s %q:\n%s", r.Info.Name, col, want, line)
			}
		}
	}
	for _, want := range []string{"✓ ok", "✗ missing", "✗ MISMATCH", "✗ corrupt", "3h", "5m"} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("the layout lacks %q", want)
		}
	}
}

// TestHelmLayoutIsOneRecord: the layout of a Helm record shows one object,
// the record, and nothing of chunks.
func TestHelmLayoutIsOneRecord(t *testing.T) {
	st := theme.DefaultStyles()
	text := screentest.Plain(renderHelmLayout(&st, screentest.LokiLayout(), kube.DriverSecret, time.Now(), 80))
	for _, want := range []string{"SECRET", "record", "helm.sh/release.v1", "in one Secret", "What takes the space"} {
		if !strings.Contains(text, want) {
			t.Errorf("layout lacks %q:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"chunk secret", "chunk 2", "index", "hash"} {
		if strings.Contains(strings.ToLower(text), unwanted) {
			t.Errorf("layout of a Helm record speaks of %q:\n%s", unwanted, text)
		}
	}
	cm := screentest.Plain(renderHelmLayout(&st, screentest.LokiLayout(), kube.DriverConfigMap, time.Now(), 80))
	if !strings.Contains(cm, "CONFIGMAP") || !strings.Contains(cm, "in one ConfigMap") {
		t.Errorf("ConfigMap layout:\n%s", cm)
	}
}

// TestDrawnBeforeMeasured: the chunk layout is drawn from its Secrets, hash
// checks done, before its payload is decoded for the sizes; the sizes then
// fill in below.
func TestDrawnBeforeMeasured(t *testing.T) {
	for _, sz := range [][2]int{{80, 21}, {160, 47}} {
		w, h := sz[0], sz[1]
		f := screentest.NewFixture(t)
		row := revisionRow(t, f, "default", "web", 4)
		s := New(screentest.Common(f.Client), row)
		s.SetSize(w, h)
		measure := s.Update(s.Init()())
		if measure == nil || !s.Busy() {
			t.Fatalf("%dx%d: the layout's Secrets came back without a measure to follow", w, h)
		}
		first := ansi.Strip(s.view.Content())
		for _, want := range []string{"Record " + row.Key, "chunk 2", "✓ ok", "Stored (gzip)", "Decoding the payload"} {
			if !strings.Contains(first, want) {
				t.Errorf("%dx%d: before the measure, the layout lacks %q:\n%s", w, h, want, first)
			}
		}
		if strings.Contains(first, "What takes the space") || strings.Contains(first, "✗") {
			t.Errorf("%dx%d: before the measure, the layout shows sizes or a failed check:\n%s", w, h, first)
		}
		s.Update(measure())
		done := ansi.Strip(s.view.Content())
		if s.Busy() || !strings.Contains(done, "What takes the space") || !strings.Contains(done, "Decompressed (JSON)") || strings.Contains(done, "Decoding the payload") {
			t.Errorf("%dx%d: after the measure, the layout is not complete:\n%s", w, h, done)
		}
		for i, l := range strings.Split(s.View(), "\n") {
			if ansi.StringWidth(l) > w {
				t.Errorf("%dx%d: line %d is %d wide", w, h, i, ansi.StringWidth(l))
			}
		}
	}
}

// TestLayoutSeenIsRemembered: a layout read tells the release list its largest
// Secret exactly, where the list had estimated it from the summary.
func TestLayoutSeenIsRemembered(t *testing.T) {
	f := screentest.NewFixture(t)
	row := revisionRow(t, f, "default", "web", 4)
	c := screentest.Common(f.Client)
	h := screentest.New(t, New(c, row), 80, 24)
	s := h.S.(*Screen)
	want := s.layout.Index.Bytes
	for _, ch := range s.layout.Chunks {
		want = max(want, ch.Bytes)
	}
	if got, ok := common.LargestSecret(row, 1, c.Layouts); !ok || got != int64(want) {
		t.Errorf("largest Secret after the layout was read: %d, %v; want %d, exactly", got, ok, want)
	}
}

// TestReadAgain: r reads the layout again, and so does a change of the release;
// a change of another release does not.
func TestReadAgain(t *testing.T) {
	f := screentest.NewFixture(t)
	row := revisionRow(t, f, "default", "web", 4)
	h := screentest.New(t, New(screentest.Common(f.Client), row), 80, 24)
	reads := func() int { return f.Cluster.Requests()[fakeapi.VerbGet] + f.Cluster.Requests()[fakeapi.VerbList] }
	before := reads()
	h.Send(common.ReleaseChangedMsg{Ns: "default", Name: "worker"})
	if reads() != before {
		t.Fatal("a change of another release read the layout again")
	}
	h.Send(common.ReleaseChangedMsg{Ns: "default", Name: "web"})
	if reads() == before {
		t.Fatal("a change of the release did not read the layout again")
	}
	before = reads()
	h.Press("r")
	if reads() == before {
		t.Fatal("r did not read the layout again")
	}
	h.Contains("Record " + row.Key)
}
