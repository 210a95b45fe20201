package ui

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/screens/chunks"
	"github.com/chunkview/chunkview/ui/screens/diff"
	"github.com/chunkview/chunkview/ui/screens/history"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// getGate holds back the Gets of Secrets once armed, as a slow server would:
// each waits until the gate opens (then fails with err, if set) or its context
// ends.
type getGate struct {
	mu      sync.Mutex
	armed   bool
	entered chan struct{} // closed when the first Get waits
	open    chan struct{}
	err     error
	once    sync.Once
	// cancelled counts the Gets whose context ended while they waited.
	cancelled atomic.Int32
}

func newGetGate() *getGate {
	return &getGate{entered: make(chan struct{}), open: make(chan struct{})}
}

func (g *getGate) arm() { g.mu.Lock(); g.armed = true; g.mu.Unlock() }

// fail answers the Gets waiting, and every one after, with err, until disarm.
func (g *getGate) fail(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.err = err
	close(g.open)
}

// disarm lets the Gets after it through.
func (g *getGate) disarm() { g.mu.Lock(); g.armed = false; g.mu.Unlock() }

func (g *getGate) wait(ctx context.Context) error {
	g.mu.Lock()
	armed, err := g.armed, g.err
	g.mu.Unlock()
	if !armed {
		return nil
	}
	if err != nil {
		return err
	}
	g.once.Do(func() { close(g.entered) })
	select {
	case <-g.open:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.err
	case <-ctx.Done():
		g.cancelled.Add(1)
		return ctx.Err()
	}
}

func (g *getGate) waiting() bool {
	select {
	case <-g.entered:
		return true
	default:
		return false
	}
}

type gatedClientset struct {
	kubernetes.Interface
	g *getGate
}

func (c gatedClientset) CoreV1() corev1client.CoreV1Interface {
	return gatedCore{c.Interface.CoreV1(), c.g}
}

type gatedCore struct {
	corev1client.CoreV1Interface
	g *getGate
}

func (c gatedCore) Secrets(ns string) corev1client.SecretInterface {
	return gatedSecrets{c.CoreV1Interface.Secrets(ns), c.g}
}

type gatedSecrets struct {
	corev1client.SecretInterface
	g *getGate
}

func (s gatedSecrets) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	if err := s.g.wait(ctx); err != nil {
		return nil, err
	}
	return s.SecretInterface.Get(ctx, name, opts)
}

// gatedFixture is the fixture with its client's Gets of Secrets behind a gate.
func gatedFixture(t *testing.T) (*fixture, *getGate) {
	f := newFixture(t)
	g := newGetGate()
	f.client = kube.New(gatedClientset{f.cluster.Clientset(), g}, f.cluster.Metadata(), demo.DiscardKubeClients, testConfig())
	return f, g
}

// pump feeds the commands' answers to the model, without waiting for all of
// them (a gated read does not answer), until done reports true.
func (h *harness) pump(what string, done func() bool) {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	// done may turn true without a message (a read reaching the gate): look
	// again now and then.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !done() {
		select {
		case msg := <-h.msgs:
			h.busy--
			h.feed(msg, true)
		case <-tick.C:
		case <-deadline:
			h.t.Fatalf("%s: not within 20s; messages so far: %v\nscreen:\n%s", what, h.trace, h.screen())
		}
	}
}

// The history reads its latest two revisions ahead: d on the latest then
// compares them without reading any record again.
func TestHistoryPrefetchServesDiff(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 50}} {
		f := newFixture(t)
		h := newHarness(t, f.client, Options{}, size[0], size[1])
		h.press("down", "down", "enter") // web, 4 revisions
		if _, ok := h.top().(*history.Screen); !ok {
			t.Fatalf("%dx%d: enter on web did not open its history:\n%s", size[0], size[1], h.screen())
		}
		f.cluster.ResetRequests()
		h.press("d").contains("web: revision 3 → 4", "secrets masked")
		if got := f.cluster.Requests(); got[fakeapi.VerbGet] != 0 || got[fakeapi.VerbList] != 1 {
			t.Errorf("%dx%d: d after the prefetch made requests %v, want only the history's list", size[0], size[1], got)
		}
		// Without the prefetch, a diff reads its records: the count above can fail.
		h.press("esc", "up", "d").contains("web: revision 2 → 3")
		if got := f.cluster.Requests()[fakeapi.VerbGet]; got == 0 {
			t.Errorf("%dx%d: a diff of revisions not read ahead made no Get", size[0], size[1])
		}
	}
}

// Leaving the history cancels its read ahead.
func TestHistoryPrefetchCancelledOnLeave(t *testing.T) {
	f, g := gatedFixture(t)
	h := newHarness(t, f.client, Options{}, 120, 40)
	h.press("down", "down")
	g.arm()
	h.feed(keyMsg("enter"), false)
	h.pump("the prefetch of web's latest two revisions", g.waiting)
	h.feed(keyMsg("esc"), false)
	h.settle() // the prefetch answers only once cancelled
	if _, ok := h.top().(*releases.Screen); !ok {
		t.Fatalf("esc did not go back to the release list:\n%s", h.screen())
	}
	if n := g.cancelled.Load(); n == 0 {
		t.Error("leaving the history did not cancel its prefetch")
	}
}

// A prefetch that fails is not swallowed: d, pressed while it runs, shows the
// error (the prefetch's own, or its own read's when it came after); the next d
// reads again.
func TestHistoryPrefetchErrorShownOnDiff(t *testing.T) {
	f, g := gatedFixture(t)
	h := newHarness(t, f.client, Options{}, 120, 40)
	h.press("down", "down")
	g.arm()
	h.feed(keyMsg("enter"), false)
	h.pump("the prefetch of web's latest two revisions", g.waiting)
	h.feed(keyMsg("d"), false)
	h.pump("the diff screen", func() bool { _, ok := h.top().(*diff.Screen); return ok })
	g.fail(apierrors.NewServiceUnavailable("etcd is not answering"))
	h.settle()
	if !strings.Contains(h.screen(), "etcd is not answering") {
		t.Fatalf("the prefetch's error is not shown by d:\n%s", h.screen())
	}
	g.disarm()
	h.press("esc", "d").contains("web: revision 3 → 4").lacks("etcd is not answering")
}

// The chunk layout is drawn from its Secrets, hash checks done, before its
// payload is decoded for the sizes; the sizes then fill in below.
func TestChunksDrawnBeforeMeasured(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 50}} {
		w, h := size[0], size[1]
		f := newFixture(t)
		rows, err := f.client.History(context.Background(), "default", "web")
		if err != nil {
			t.Fatal(err)
		}
		row := rows[len(rows)-1]
		c := testCommon(f)
		c.SetSize(w, h-3)
		s := chunks.New(c, row)
		s.SetSize(w, h-3)
		measure := s.Update(s.Init()())
		if measure == nil || !s.Busy() {
			t.Fatalf("%dx%d: the layout's Secrets came back without a measure to follow", w, h)
		}
		first := ansi.Strip(s.Vp.GetContent())
		for _, want := range []string{"Record " + row.Key, "chunk 2", "✓ ok", "Stored (gzip)", "Decoding the payload"} {
			if !strings.Contains(first, want) {
				t.Errorf("%dx%d: before the measure, the layout lacks %q:\n%s", w, h, want, first)
			}
		}
		if strings.Contains(first, "What takes the space") || strings.Contains(first, "✗") {
			t.Errorf("%dx%d: before the measure, the layout shows sizes or a failed check:\n%s", w, h, first)
		}
		s.Update(measure())
		done := ansi.Strip(s.Vp.GetContent())
		if s.Busy() || !strings.Contains(done, "What takes the space") || !strings.Contains(done, "Decompressed (JSON)") || strings.Contains(done, "Decoding the payload") {
			t.Errorf("%dx%d: after the measure, the layout is not complete:\n%s", w, h, done)
		}
		for _, v := range []string{s.View()} {
			for i, l := range strings.Split(v, "\n") {
				if ansi.StringWidth(l) > w {
					t.Errorf("%dx%d: line %d is %d wide", w, h, i, ansi.StringWidth(l))
				}
			}
		}
	}
}
