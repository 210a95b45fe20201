package cli

import (
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
)

// fitNameWidth bounds the NAME column of the largest items, so that the table
// stays within 80 columns; fitWidth is where sentences wrap.
const (
	fitNameWidth = 40
	fitWidth     = 80
)

// printFit prints a fit result for people: one row per store, why a store
// refuses the record, the comparison with the current revision, and what takes
// the room. Every line stays within 80 columns but a long item name's.
func (r *run) printFit(out *FitResult) error {
	w := r.stdout
	what := "an install of"
	if out.Action == "upgrade" {
		what = "an upgrade of"
	}
	title := fmt.Sprintf("%s as %s %q (namespace %s), revision %d, as Helm %d stores it: %s of JSON",
		out.Chart, what, out.Release, out.Namespace, out.Revision, out.Helm, human.Bytes(int64(out.JSONBytes)))
	fmt.Fprint(w, human.WrapHanging(title, fitWidth, "  "))
	fmt.Fprintln(w)
	printTabbed(w, render.FitTable(out.Stores, out.Current != nil))
	for _, s := range out.Stores {
		if !s.Fits {
			fmt.Fprint(w, human.WrapHanging(fmt.Sprintf("✗ %s: %s", kube.DriverLabel(s.Driver), s.Reason), fitWidth, "  "))
		}
	}
	if cur := out.Current; cur != nil {
		fmt.Fprintln(w)
		fmt.Fprint(w, human.WrapHanging(currentLine(cur, out.Revision), fitWidth, ""))
	}
	r.printBreakdown(out.Breakdown)
	return nil
}

// currentLine compares the upgrade with the latest revision in the store that
// holds the release, and says the history's growth.
func currentLine(cur *FitCurrent, rev int) string {
	store := kube.DriverLabel(cur.Driver)
	now := fmt.Sprintf("Now: revision %d (%s) in %s", cur.Revision, cur.Status, store)
	if cur.StoredBytes > 0 {
		now += fmt.Sprintf(" takes %s", human.Bytes(cur.StoredBytes))
	}
	up := fmt.Sprintf("revision %d would take %s", rev, human.Bytes(cur.UpgradeBytes))
	if cur.StoredBytes > 0 {
		up += fmt.Sprintf(" (%s%s)", signed(float64(cur.DeltaBytes)), human.Bytes(abs64(cur.DeltaBytes)))
	}
	line := now + "; " + up + "."
	if g := cur.Growth; g.PerRevision != 0 {
		line += fmt.Sprintf(" Lately %s%s per revision.", signed(g.PerRevision), human.Bytes(abs64(int64(g.PerRevision))))
	}
	return line
}

// printBreakdown prints what takes the room: the parts, then the largest items.
func (r *run) printBreakdown(bd fit.Breakdown) {
	w := r.stdout
	fmt.Fprintf(w, "\n%s\n%s\n", render.PartsTitle, render.PartsNote)
	// The largest items follow, in a table of their own.
	printTabbed(w, render.PartsTable(bd.Parts).Select(render.PartName, render.PartItems, render.PartJSON, render.PartGzip, render.PartShare))
	if len(bd.Largest) == 0 {
		return
	}
	fmt.Fprintln(w, "\nLargest items (compressed alone):")
	tw := newTable(w)
	row(tw, "KIND", "SIZE", "GZIP", "NAME")
	for _, it := range bd.Largest {
		row(tw, it.Kind, human.Bytes(int64(it.Bytes)), human.Bytes(int64(it.GzipBytes)), cutLeft(it.Name, fitNameWidth))
	}
	tw.Flush()
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// cutLeft shortens s to n runes, keeping its end, where a path's file name is.
func cutLeft(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return "…" + strings.TrimLeft(string(rs[len(rs)-n+1:]), "/")
}
