package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
)

// defaultWaitTimeout is rollback --wait's --timeout: Helm's.
const defaultWaitTimeout = 5 * time.Minute

// RollbackWait is what `rollback --wait` waited for and found.
type RollbackWait struct {
	// Ready is set when every object became Current within Timeout.
	Ready   bool   `json:"ready"`
	Timeout string `json:"timeout"`
	// Resources are the objects rolled back to, as they were when the wait
	// ended.
	Resources []live.ResourceStatus `json:"resources"`
}

// waitCurrent waits until every object of revision rev (of rows, the release's
// history), named label in what it prints, is Current, or timeout passes, printing its progress on the
// rollback's stderr. It judges the objects with the same kstatus reading as
// `status`, and follows them with the same watches as the TUI: one per kind and
// namespace. It returns the status as the wait left it; the error says what is
// not Current when time ran out.
func (r *run) waitCurrent(ctx context.Context, c live.Source, rows []kube.RevisionRow, rev int, label string, timeout time.Duration) (*live.ReleaseStatus, error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st, err := live.StatusOf(wctx, c, rows, rev, live.StatusOptions{ObjectsOnly: true})
	if err != nil {
		return nil, err
	}
	p := &waitProgress{w: r.stderr, tty: writerIsTerminal(r.stderr), total: len(st.Resources)}
	fmt.Fprintf(r.stderr, "Waiting up to %s for the %s of %s to be Current.\n", timeout, human.Plural(len(st.Resources), "object", "objects"), label)
	p.show(st, nil)
	if st.Ready() {
		p.done()
		return st, nil
	}
	for upd := range live.WatchStatus(wctx, c, st, live.StatusWatchOptions{}) {
		st = upd.Status
		if upd.Polling && !p.polling {
			p.polling = true
			p.note("Note: " + upd.Note)
		}
		p.show(st, upd.Changed)
		if st.Ready() {
			p.done()
			return st, nil
		}
	}
	p.done()
	if ctx.Err() != nil {
		return st, ctx.Err()
	}
	return st, errWaitTimeout
}

// errWaitTimeout is waitCurrent's error when time ran out.
var errWaitTimeout = errors.New("timed out")

// notCurrent lists the objects of st that are not Current, with why.
func notCurrent(st *live.ReleaseStatus) string {
	var parts []string
	for _, o := range st.NotReady() {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", o.Key(), o.Status, o.Message))
	}
	return strings.Join(parts, "; ")
}

// waitProgress prints how far a wait is: on a terminal one line updated in
// place, elsewhere one line per change.
type waitProgress struct {
	w       io.Writer
	tty     bool
	total   int
	polling bool
	// drawn is set while the terminal line is there to be redrawn.
	drawn bool
}

// maxProgressWidth bounds the line drawn in place, so that it never wraps on
// the narrowest terminal (a wrapped line cannot be redrawn).
const maxProgressWidth = 79

func (p *waitProgress) show(st *live.ReleaseStatus, changed []string) {
	cur := st.Count(live.StatusCurrent)
	if p.tty {
		line := fmt.Sprintf("%d/%d Current", cur, p.total)
		if nr := st.NotReady(); len(nr) > 0 {
			line += fmt.Sprintf(", waiting for %s %s: %s", nr[0].Key(), nr[0].Status, nr[0].Message)
		}
		if r := []rune(line); len(r) > maxProgressWidth {
			line = string(r[:maxProgressWidth-1]) + "…"
		}
		fmt.Fprintf(p.w, "\r\x1b[2K%s", line)
		p.drawn = true
		return
	}
	if changed == nil {
		fmt.Fprintf(p.w, "%d/%d Current", cur, p.total)
		if nr := st.NotReady(); len(nr) > 0 {
			fmt.Fprintf(p.w, "; not yet: %s", notCurrent(st))
		}
		fmt.Fprintln(p.w)
		return
	}
	for _, k := range changed {
		for _, o := range st.Resources {
			if o.Key() == k {
				fmt.Fprintf(p.w, "%d/%d Current: %s is %s (%s)\n", cur, p.total, k, o.Status, o.Message)
			}
		}
	}
}

// note prints a line of its own, keeping the terminal line below it.
func (p *waitProgress) note(s string) {
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[2K")
	}
	fmt.Fprintln(p.w, s)
	p.drawn = false
}

// done ends the terminal line.
func (p *waitProgress) done() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// writerIsTerminal reports whether w is a terminal, where a line can be redrawn.
func writerIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
