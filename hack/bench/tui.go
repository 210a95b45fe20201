package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/pflag"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui"
)

// The TUI, measured headless: ui.Run on a fixed-size virtual terminal (a pipe for
// input, a buffer for output), in a child process of its own. It times, from the
// process's start, the first frame that shows the release list. Then, on the
// history comparison's release, it times three keys from the press to the frame
// that shows their result: enter (the history), d on the latest revision (the diff
// of the latest two) and, back in the history, c (the latest revision's chunk
// layout). Then it quits.

// tuiResult is the TUI measurement next to the ls and history figures.
type tuiResult struct {
	Rows     []summary // one: the TUI process
	FirstRow string    // the release the list is expected to start with
	Target   string    // namespace/name of the release the keys are pressed on
	TargetGZ int       // its gzip bytes per revision, aimed at
	List     time.Duration
	History  time.Duration
	Diff     time.Duration
	Chunks   time.Duration
	Sizes    time.Duration
	Lists    []time.Duration
	Hists    []time.Duration
	Diffs    []time.Duration
	Layouts  []time.Duration
	// SizesAll are the times from `c` to the frame that shows the record's
	// sizes, which the layout draws once the payload is decoded.
	SizesAll []time.Duration
}

// tuiOut is what the tui child prints.
type tuiOut struct {
	ListNs    int64 `json:"listNs"`
	HistoryNs int64 `json:"historyNs"`
	DiffNs    int64 `json:"diffNs"`
	ChunksNs  int64 `json:"chunksNs"`
	SizesNs   int64 `json:"sizesNs"`
	// Rows is set so that countRows sees one row per release listed (unknown here).
	Releases []struct{} `json:"releases"`
}

// screenWatcher accumulates what the program draws and reports when a text appears
// on the screen, escape sequences removed.
type screenWatcher struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	hit  chan struct{}
	// then, when set, is drawn after want: thenHit closes once both are.
	then    string
	thenHit chan struct{}
}

func (w *screenWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.want == "" && w.then == "" {
		return len(p), nil
	}
	screen := ansi.Strip(w.buf.String())
	if w.want != "" && strings.Contains(screen, w.want) {
		w.want = ""
		close(w.hit)
	}
	if w.want == "" && w.then != "" && strings.Contains(screen, w.then) {
		w.then = ""
		close(w.thenHit)
	}
	return len(p), nil
}

// expectThen is expect for text, and also returns a channel closed when then is
// drawn too, in the same frame or a later one.
func (w *screenWatcher) expectThen(text, then string) (<-chan struct{}, <-chan struct{}) {
	hit := w.expect(text)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.then = then
	w.thenHit = make(chan struct{})
	return hit, w.thenHit
}

// expect resets the screen log and returns a channel closed when text is drawn.
func (w *screenWatcher) expect(text string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Reset()
	w.want = text
	w.hit = make(chan struct{})
	return w.hit
}

// tuiChild runs the TUI against the fleet and prints its timings.
func tuiChild(ctx context.Context, a childArgs, start time.Time, stdout, stderr io.Writer) error {
	o := kube.NewOptions()
	fs := pflag.NewFlagSet("chunkview", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--kubeconfig", a.Kubeconfig, "--owner", a.Owner, "-A", "--driver", "chunked", "--read-only"}); err != nil {
		return err
	}
	o.Stats = &kube.Stats{}
	defer cli.WriteStats(stderr, o.Stats)
	c, err := o.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	in, keys := io.Pipe()
	screen := &screenWatcher{}
	listed := screen.expect(a.Release)
	done := make(chan error, 1)
	go func() {
		done <- ui.Run(ctx, c, ui.Options{
			Input: in, Output: screen,
			ProgramOptions: []tea.ProgramOption{tea.WithWindowSize(160, 50), tea.WithoutSignalHandler()},
		})
	}()
	var out tuiOut
	wait := func(ch <-chan struct{}, what string) error {
		select {
		case <-ch:
			return nil
		case err := <-done:
			return fmt.Errorf("the TUI ended before %s: %v", what, err)
		case <-ctx.Done():
			return fmt.Errorf("no %s within the time allowed", what)
		}
	}
	if err := wait(listed, "drawing the release list"); err != nil {
		return err
	}
	out.ListNs = int64(time.Since(start))
	// press sends a key and returns the time from the press to the frame that
	// shows text.
	thenText := "" // when set, press also watches for it (sized)
	var sized <-chan struct{}
	press := func(k, text, what string) (int64, error) {
		ch := screen.expect(text)
		if thenText != "" {
			ch, sized = screen.expectThen(text, thenText)
		}
		stop, err := startProfile(what)
		if err != nil {
			return 0, err
		}
		defer stop()
		t0 := time.Now()
		if _, err := keys.Write([]byte(k)); err != nil {
			return 0, err
		}
		if err := wait(ch, what); err != nil {
			return 0, err
		}
		return int64(time.Since(t0)), nil
	}
	// Down to the target's row, untimed; the pause lets the moves be drawn
	// before the timed key.
	if a.Down > 0 {
		if _, err := keys.Write([]byte(strings.Repeat("j", a.Down))); err != nil {
			return err
		}
	}
	time.Sleep(300 * time.Millisecond)
	if out.HistoryNs, err = press("\r", a.Expect, "drawing the history"); err != nil { // a text only the history screen shows
		return err
	}
	// The cursor is on the latest revision: d compares it with the one before.
	if out.DiffNs, err = press("d", fmt.Sprintf("%s: revision %d → %d", a.Target, revisions-1, revisions), "drawing the diff"); err != nil {
		return err
	}
	if _, err := keys.Write([]byte{0x1b}); err != nil { // esc: back to the history
		return err
	}
	time.Sleep(300 * time.Millisecond)
	// The layout is drawn from the records first; its sizes follow once the
	// payload is decoded: both are timed from the press.
	thenText = "What takes the space"
	c0 := time.Now()
	if out.ChunksNs, err = press("c", "Record "+storage.RecordKey(a.Target, revisions), "drawing the chunk layout"); err != nil {
		return err
	}
	if err := wait(sized, "drawing the record's sizes"); err != nil {
		return err
	}
	out.SizesNs = int64(time.Since(c0))
	_, _ = keys.Write([]byte("q"))
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cancel()
		<-done
	}
	_ = keys.Close()
	return json.NewEncoder(stdout).Encode(out)
}

// profileEnv names a path prefix: when set, the tui child takes a CPU profile
// of each timed key, from the press to its frame, into PREFIX.KEY.PID.prof (one
// file per key and process, for `go tool pprof` to merge across runs).
const profileEnv = "CHUNKVIEW_CPUPROFILE"

// startProfile starts the CPU profile of one key when profileEnv asks for it,
// and returns what stops it.
func startProfile(what string) (func(), error) {
	prefix := os.Getenv(profileEnv)
	if prefix == "" {
		return func() {}, nil
	}
	name := strings.ReplaceAll(strings.TrimPrefix(what, "drawing the "), " ", "-")
	f, err := os.Create(fmt.Sprintf("%s.%s.%d.prof", prefix, name, os.Getpid()))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

func (m *measurer) tui(rep *report) error {
	// The list is sorted by namespace, then name: its first row is the first
	// release of fleet-00. Opening it shows its revisions, whose descriptions the
	// list does not show.
	first := ""
	for _, s := range m.f.Specs {
		if s.NS == 0 && (first == "" || s.Name < first) {
			first = s.Name
		}
	}
	// The keys are pressed on the history comparison's release: its row is below
	// every release of a lower namespace and the ones of its own sorted before it.
	target := m.f.historySpec()
	down := 0
	for _, s := range m.f.Specs {
		if s.fleetNS() < target.fleetNS() || (s.NS == target.NS && s.Name < target.Name) {
			down++
		}
	}
	res := &tuiResult{FirstRow: first, Target: target.fleetNS() + "/" + target.Name, TargetGZ: target.GZ}
	// Both read the chunked copy only, as the listing comparison does.
	ls := m.chunkview("chunkview ls -A --driver chunked -o json", len(m.f.Specs), "ls", "-A", "--driver", "chunked", "-o", "json", "--owner", fleetOwner)
	var tuiRuns, lsRuns []procResult
	for run := range m.runs {
		// The TUI and `ls` in turns, so that they are compared under the same load.
		time.Sleep(settle)
		fmt.Fprintf(os.Stderr, "tui: run %d of %d\n", run+1, m.runs)
		r, err := runProc(nil, m.self, "-child", "tui", "-child-kubeconfig", m.bc.Kubeconfig, "-child-owner", fleetOwner,
			"-child-release", first, "-child-expect", "Install complete", "-child-target", target.Name, "-child-down", fmt.Sprint(down))
		if err != nil {
			return err
		}
		var o tuiOut
		if err := json.Unmarshal(r.Stdout, &o); err != nil {
			return fmt.Errorf("tui child output: %w", err)
		}
		res.Lists = append(res.Lists, time.Duration(o.ListNs))
		res.Hists = append(res.Hists, time.Duration(o.HistoryNs))
		res.Diffs = append(res.Diffs, time.Duration(o.DiffNs))
		res.Layouts = append(res.Layouts, time.Duration(o.ChunksNs))
		res.SizesAll = append(res.SizesAll, time.Duration(o.SizesNs))
		tuiRuns = append(tuiRuns, r)
		time.Sleep(settle)
		fmt.Fprintf(os.Stderr, "tui: %s, run %d of %d\n", ls.Label, run+1, m.runs)
		l, err := runProc(ls.Env, ls.Cmd, ls.Args...)
		if err != nil {
			return err
		}
		lsRuns = append(lsRuns, l)
	}
	res.Rows = []summary{summarize("chunkview TUI (ui.Run, headless 160x50)", tuiRuns), summarize(ls.Label, lsRuns)}
	res.List, res.History = median(res.Lists), median(res.Hists)
	res.Diff, res.Chunks, res.Sizes = median(res.Diffs), median(res.Layouts), median(res.SizesAll)
	rep.TUI = res
	return nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

func (r *report) tuiMarkdown(b *strings.Builder) {
	t := r.TUI
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("## TUI\n\n")
	p("`ui.Run` over the fleet's chunked copy (`-A --driver chunked`), headless on a 160x50 virtual terminal, in a process of its own:\n")
	p("time from the process's start to the first frame that shows the release list (its first row: `%s`), then, on\n", t.FirstRow)
	p("`%s` (the history comparison's release, about %s of gzip per revision), from each key press to the\n", t.Target, mb(float64(t.TargetGZ)))
	p("frame that shows its result: enter (the history), `d` on the latest revision (the diff of revisions %d and %d),\n", revisions-1, revisions)
	p("and, back in the history, `c` (the latest revision's chunk layout). Median of %d runs; the range is the fastest\n", len(t.Lists))
	p("and slowest run. A frame over %s is marked, with what the key waits for.\n\n", ms(frameBudget))
	p("| | time (median) | range | API requests (whole session) | bytes received | peak memory |\n|---|---|---|---|---|---|\n")
	s := t.Rows[0]
	p("| first release list drawn | %s | %s | %d | %s | %s |\n", ms(t.List), spread(t.Lists), s.Requests, mb(float64(s.Bytes)), mib(s.MaxRSS))
	gz := mb(float64(t.TargetGZ))
	for _, k := range []struct {
		what   string
		med    time.Duration
		runs   []time.Duration
		reason string
	}{
		{"`enter`: history drawn", t.History, t.Hists, "lists the release's index Secrets (metadata and summary annotations, no payload)"},
		{"`d`: diff of the latest two revisions drawn", t.Diff, t.Diffs, fmt.Sprintf("reads and decodes two revisions of about %s of gzip each, then diffs their manifests and values", gz)},
		{"`c`: chunk layout drawn", t.Chunks, t.Layouts, "reads the revision's index and chunk Secrets and checks each chunk's hash"},
		{"`c`: its sizes drawn (\"What takes the space\", once the payload is decoded)", t.Sizes, t.SizesAll, "decodes the revision and compresses its parts to measure them"},
	} {
		cell := ms(k.med)
		if k.med > frameBudget {
			cell += fmt.Sprintf(" (over 100 ms: %s)", k.reason)
		}
		p("| %s | %s | %s | | | |\n", k.what, cell, spread(k.runs))
	}
	l := t.Rows[1]
	p("| `chunkview ls -A --driver chunked -o json`, whole process, in turns with the TUI | %s | | %d | %s | %s |\n", ms(l.Wall), l.Requests, mb(float64(l.Bytes)), mib(l.MaxRSS))
	if r.History != nil {
		p("| `chunkview history --driver chunked -o json`, whole process (from the history comparison) | %s | | %d | %s | %s |\n", ms(r.History.Rows[0].Wall), r.History.Rows[0].Requests, mb(float64(r.History.Rows[0].Bytes)), mib(r.History.Rows[0].MaxRSS))
	}
	p("\n")
}

// frameBudget is the time from a key press to its frame past which the TUI no
// longer feels immediate.
const frameBudget = 100 * time.Millisecond

// spread is the fastest and slowest of ds.
func spread(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	lo, hi := ds[0], ds[0]
	for _, d := range ds {
		lo, hi = min(lo, d), max(hi, d)
	}
	return ms(lo) + "–" + ms(hi)
}
