package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chunkview/chunkview/kube"
)

// historyWatch follows one release for `history --watch`.
type historyWatch struct {
	c        *kube.Client
	ns, name string
	events   <-chan kube.WatchEvent
	stop     context.CancelFunc
}

// startHistoryWatch starts watching the records of release name and waits
// for the watch's first list, so that a listing made after it misses nothing.
func startHistoryWatch(ctx context.Context, c *kube.Client, ns, name string) (*historyWatch, error) {
	wctx, cancel := context.WithCancel(ctx)
	w := &historyWatch{c: c, ns: ns, name: name, stop: cancel}
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
func (w *historyWatch) follow(ctx context.Context, r *run, o *historyOptions, rows []kube.RevisionRow) error {
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
			for _, row := range now {
				if printed[row.Key] != row.ResourceVersion {
					w.print(ctx, r, o, row)
					printed[row.Key] = row.ResourceVersion
				}
			}
		case kube.WatchChanged:
			if mine(ev.Row) && printed[ev.Row.Key] != ev.Row.ResourceVersion {
				w.print(ctx, r, o, ev.Row)
				printed[ev.Row.Key] = ev.Row.ResourceVersion
			}
		case kube.WatchDeleted:
			if mine(ev.Row) {
				row := ev.Row
				row.Status = "deleted"
				w.print(ctx, r, o, row)
				delete(printed, row.Key)
			}
		}
	}
}

// print prints one revision as a table row or a JSON object. A revision that
// is there is read first: its summary (one GET for Helm's stores) and health.
func (w *historyWatch) print(ctx context.Context, r *run, o *historyOptions, row kube.RevisionRow) {
	if row.Status != "deleted" {
		ptr := []*kube.RevisionRow{&row}
		_ = w.c.FillDetails(ctx, ptr)
		_ = w.c.CheckHealth(ctx, ptr)
	} else {
		row.Checked = true
	}
	it := revisionItem(row)
	if o.format == FormatJSON {
		b, err := json.Marshal(it)
		if err == nil {
			fmt.Fprintln(r.stdout, string(b))
		}
		return
	}
	out := History{Release: w.name, Driver: row.Driver, StorageNamespace: row.StorageNamespace, Revisions: []RevisionItem{it}}
	_ = r.printHistory(out, o.format == FormatWide, true)
}
