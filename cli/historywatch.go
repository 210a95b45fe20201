package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/chunkview/chunkview/kube"
)

// historyWatch follows one release for `history --watch`.
type historyWatch struct {
	c        watchClient
	health   healthChecker
	ns, name string
	events   <-chan kube.WatchEvent
	stop     context.CancelFunc
	// widths are the table's column widths, which later rows keep.
	widths []int
}

// startHistoryWatch starts watching the records of release name and waits
// for the watch's first list, so that a listing made after it misses nothing.
// The revisions it reports are checked with health.
func startHistoryWatch(ctx context.Context, c watchClient, health healthChecker, ns, name string) (*historyWatch, error) {
	wctx, cancel := context.WithCancel(ctx)
	w := &historyWatch{c: c, health: health, ns: ns, name: name, stop: cancel}
	w.events = c.Watch(wctx, kube.WatchOptions{Name: name, Namespace: ns})
	if _, ok := <-w.events; !ok {
		cancel()
		return nil, ctx.Err()
	}
	return w, nil
}

// follow prints a row for each revision of the release added, changed or
// deleted after rows were printed, until ctx is done (Ctrl-C): that ends it
// without error. kubectl's get -w exits 1 when interrupted (its interrupt
// handler calls os.Exit(1)); here ending a watch is how it is used, not a
// failure, so the status is 0.
//
// A table row is padded to the widths of the table printed first (widths), so
// that it lines up under it; -o json prints one watchEvent a line.
func (w *historyWatch) follow(ctx context.Context, r *run, o *historyOptions, rows []kube.RevisionRow, widths []int) error {
	w.widths = widths
	first := rows[0]
	printed := map[string]string{}
	for _, row := range rows {
		printed[row.Key] = row.ResourceVersion
	}
	mine := func(row kube.RevisionRow) bool {
		return row.Name == w.name && row.Driver == first.Driver && row.StorageNamespace == first.StorageNamespace
	}
	for {
		var ev kube.WatchEvent
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.events:
			if !ok {
				return nil
			}
			ev = e
		}
		switch ev.Type {
		case kube.WatchMode:
			if ev.Polling {
				fmt.Fprintf(r.stderr, "Warning: %s\n", ev.Note)
			}
		case kube.WatchSynced:
			// The watch fell behind: what changed meanwhile is in a new listing.
			now, err := w.c.History(ctx, w.ns, w.name)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				fmt.Fprintf(r.stderr, "Warning: could not list the revisions again: %s\n", message(err))
				continue
			}
			seen := map[string]bool{}
			for _, row := range now {
				seen[row.Key] = true
				if rv, ok := printed[row.Key]; !ok || rv != row.ResourceVersion {
					w.print(ctx, r, o, changeType(ok), row)
					printed[row.Key] = row.ResourceVersion
				}
			}
			// What was deleted while the watch was behind.
			for _, row := range rows {
				if _, ok := printed[row.Key]; ok && !seen[row.Key] {
					row.Status = "deleted"
					w.print(ctx, r, o, watchDeleted, row)
					delete(printed, row.Key)
				}
			}
			rows = now
		case kube.WatchChanged:
			if rv, ok := printed[ev.Row.Key]; mine(ev.Row) && rv != ev.Row.ResourceVersion {
				w.print(ctx, r, o, changeType(ok), ev.Row)
				printed[ev.Row.Key] = ev.Row.ResourceVersion
				rows = append(rows, ev.Row)
			}
		case kube.WatchDeleted:
			if mine(ev.Row) {
				row := ev.Row
				row.Status = "deleted"
				w.print(ctx, r, o, watchDeleted, row)
				delete(printed, row.Key)
			}
		}
	}
}

// print prints one revision as a table row or a JSON event. A revision that
// is there is read first: its summary (one GET for Helm's stores) and health.
func (w *historyWatch) print(ctx context.Context, r *run, o *historyOptions, typ string, row kube.RevisionRow) {
	if row.Status != "deleted" {
		ptr := []*kube.RevisionRow{&row}
		_ = w.c.FillDetails(ctx, ptr)
		_ = w.health.CheckHealth(ctx, ptr)
	} else {
		row.Checked = true
	}
	it := revisionItem(row)
	if o.format == FormatJSON {
		printWatchEvent(r.stdout, typ, w.name, it)
		return
	}
	_ = printAligned(r.stdout, historyTable([]kube.RevisionRow{row}, o.format == FormatWide).Texts(), w.widths)
}

// The types of watchEvent, kubectl's watch event types.
const (
	watchAdded    = "ADDED"
	watchModified = "MODIFIED"
	watchDeleted  = "DELETED"
)

// changeType is the event type of a revision seen changed: MODIFIED when it was
// printed before, else ADDED.
func changeType(printedBefore bool) string {
	if printedBefore {
		return watchModified
	}
	return watchAdded
}

// watchEvent is one line of `history --watch -o json`: what happened to which
// revision, in the shape of kubectl's --output-watch-events. The revisions there
// when the watch starts come first, as ADDED; a deleted one is last seen as it
// was, with status "deleted".
type watchEvent struct {
	Type     string       `json:"type"`
	Release  string       `json:"release"`
	Revision RevisionItem `json:"revision"`
}

// printWatchEvent prints one watchEvent on a line of its own.
func printWatchEvent(w io.Writer, typ, release string, it RevisionItem) {
	if b, err := json.Marshal(watchEvent{Type: typ, Release: release, Revision: it}); err == nil {
		fmt.Fprintln(w, string(b))
	}
}
