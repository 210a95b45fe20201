package pods

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

func TestMain(m *testing.M) { screentest.Main(m) }

// demoPassword is payments-api's database password in the demo's values,
// which its failed migration's log quotes.
const demoPassword = "r0tated-2q4W!zT8"

// releasePods reads the Pods of release name in the demo, as the views do.
func releasePods(t *testing.T, c *kube.Client, ns, name string) *live.ReleasePods {
	t.Helper()
	rows, err := c.History(t.Context(), ns, name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := live.PodsOf(t.Context(), c, rows, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeLogs is a log whose lines the test writes one at a time: the end
// (tail) read at once, then what is written while followed. stopped is
// closed once a followed stream returned.
type fakeLogs struct {
	tail    string
	lines   chan string
	stopped chan struct{}
	mu      sync.Mutex
	opts    []live.LogOptions
}

// asked are the options of each read, in order.
func (f *fakeLogs) asked() []live.LogOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.opts)
}

func (f *fakeLogs) Stream(ctx context.Context, t live.LogTarget, opts live.LogOptions, line func(string)) error {
	f.mu.Lock()
	f.opts = append(f.opts, opts)
	f.mu.Unlock()
	line(f.tail)
	if !opts.Follow {
		return nil
	}
	defer close(f.stopped)
	for {
		select {
		case l := <-f.lines:
			line(l)
		case <-ctx.Done():
			return nil
		}
	}
}

// TestFollowStreamsAndStops: the log view reads the last 100 lines of the
// crashing container; f follows, and two lines written at different times
// each reach the view as they arrive, masked (the release's database
// password); closing the view stops the stream (it returns: no goroutine is
// left reading).
func TestFollowStreamsAndStops(t *testing.T) {
	c := screentest.DemoLive(t, demo.StuckRelease, demo.FailedHookRelease)
	rp := releasePods(t, c, "payments", demo.FailedHookRelease)
	src := &fakeLogs{tail: "the end so far", lines: make(chan string), stopped: make(chan struct{})}
	s := newLog(screentest.Common(c), src, rp, "payments", demo.FailedHookRelease, 0, "Deployment", demo.FailedHookRelease)
	h := screentest.New(t, s, 80, 24)
	h.Contains("the end so far", "tail 100", "ended (f: follow)")
	if o := src.asked(); len(o) != 1 || o[0].Tail != TailLines || o[0].Follow {
		t.Fatalf("the first read: %+v", o)
	}
	h.Press("f")
	if !s.streaming {
		t.Fatal("f does not follow")
	}
	src.lines <- "first line, written later"
	if o := src.asked(); len(o) != 2 || !o[1].Follow || o[1].Tail != TailLines {
		t.Fatalf("the followed read: %+v", o)
	}
	h.WaitAsync("the first line", func() bool { return strings.Contains(h.View(), "first line") })
	h.Contains("● following (f: stop)").Lacks("second line")
	src.lines <- "second line: password " + demoPassword + " rejected"
	h.WaitAsync("the second line", func() bool { return strings.Contains(h.View(), "second line") })
	h.Contains("first line", "password <masked:").Lacks(demoPassword)
	s.Close()
	select {
	case <-src.stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("closing the view did not stop the stream")
	}
	if s.streaming {
		t.Error("the view still says it follows")
	}
}

// TestHookLogMasked: l on payments-api's failed migration hook Job shows its
// Pod's log (the demo serves it), the database password it quotes masked by
// the release's scrub, as `chunkview logs` masks it; v reveals it and masks
// it again.
func TestHookLogMasked(t *testing.T) {
	c := screentest.DemoLive(t, demo.FailedHookRelease)
	s := NewLog(screentest.Common(c), nil, "payments", demo.FailedHookRelease, 0, "Job", demo.FailedHookRelease+"-migrate")
	h := screentest.New(t, s, 160, 45)
	h.Contains("migrate: connecting to postgres://<masked:", "database is dirty at version 42", "masked (v: reveal)").Lacks(demoPassword)
	h.Press("v")
	h.Contains(demoPassword, "secrets shown (v: mask)")
	h.Press("v")
	h.Lacks(demoPassword)
}
