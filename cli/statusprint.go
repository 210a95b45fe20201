package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/render"
)

// statusWidth is the width `status` lays its tables out in: the narrowest
// terminal there is. A message longer than its column wraps under it.
const statusWidth = 80

// maxEventsShown bounds the events the table lists; -o json has them all.
const maxEventsShown = 10

// printStatus writes st as `status` shows it, in width columns: render.StatusOf
// printed plain, under helm status's header and over its NOTES; with wide,
// the Pods behind each workload after the objects.
func printStatus(w io.Writer, st *live.ReleaseStatus, now time.Time, width int, wide bool) error {
	s := render.StatusOf(st, now)
	var b strings.Builder
	writeStatusHeader(&b, s, width)
	if s.Latest != nil {
		fmt.Fprintf(&b, "%s; --revision %d shows its objects and hooks.\n", s.Latest.Text, s.LatestRevision)
	}
	for _, n := range s.Remarks {
		b.WriteString(human.WrapHanging("Note: "+n.Text, width, "  "))
	}
	fmt.Fprintf(&b, "Objects: %s\n\n", s.Objects.Text)
	b.WriteString(fitTable(s.Resources.Head(), s.Resources.Texts(), width))
	if wide {
		writePods(&b, st.Pods, now, width)
	}

	if len(s.Hooks) > 0 {
		b.WriteString("\nHooks (last run, as Helm recorded it):\n")
		ht := s.HookTable()
		b.WriteString(fitTable(ht.Head(), ht.Texts(), width))
		for _, h := range s.Hooks {
			writeHookJob(&b, h, width)
		}
	}

	if s.HooksRead {
		if len(s.Events.Rows) == 0 {
			b.WriteString("\nNo Warning events.\n")
		} else {
			b.WriteString("\nWarning events, newest first:\n")
			rows := s.Events.Texts()
			b.WriteString(fitTable(s.Events.Head(), rows[:min(len(rows), maxEventsShown)], width))
			if more := len(rows) - maxEventsShown + s.EventsOmitted; more > 0 {
				fmt.Fprintf(&b, "... and %d older (-o json lists up to %d).\n", more, live.MaxStatusEvents)
			}
		}
	}
	if n := strings.TrimSpace(s.ChartNotes); n != "" {
		fmt.Fprintf(&b, "\nNOTES:\n%s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeStatusHeader writes the release's header as helm status does (NAME,
// LAST DEPLOYED in time.ANSIC and the record's zone, NAMESPACE, STATUS,
// REVISION; DESCRIPTION as its --show-desc), then chunkview's STORE.
func writeStatusHeader(b *strings.Builder, s render.Status, width int) {
	fmt.Fprintf(b, "NAME: %s\n", s.Release)
	if !s.LastDeployed.IsZero() {
		fmt.Fprintf(b, "LAST DEPLOYED: %s\n", s.LastDeployed.Format(time.ANSIC))
	}
	fmt.Fprintf(b, "NAMESPACE: %s\nSTATUS: %s\nREVISION: %d\n", s.Namespace, s.Helm.Text, s.Revision)
	if s.Description != "" {
		b.WriteString(human.WrapHanging("DESCRIPTION: "+s.Description, width, "  "))
	}
	fmt.Fprintf(b, "STORE: %s\n\n", s.Store)
}

// writePods writes the Pods behind each workload, render.PodsOf printed
// plain: a table a workload, its columns as wide as their values (-o wide,
// as kubectl's, is not held to the width).
func writePods(b *strings.Builder, pods []live.WorkloadPods, now time.Time, width int) {
	if len(pods) == 0 {
		b.WriteString("\nNo workload (Deployment, StatefulSet, DaemonSet, Job) of the release is in the cluster.\n")
		return
	}
	for _, w := range pods {
		p := render.PodsOf(w, now)
		b.WriteString("\n" + human.WrapHanging("Pods of "+p.Title.Text, width, "  "))
		if p.Remark != nil {
			b.WriteString(human.WrapHanging("  "+p.Remark.Text, width, "    "))
		}
		if len(p.Table.Rows) == 0 {
			if p.Remark == nil {
				b.WriteString("  none\n")
			}
			continue
		}
		var tb strings.Builder
		tw := newTable(&tb)
		for _, r := range append([][]string{p.Table.Head()}, p.Table.Texts()...) {
			cells := make([]any, len(r))
			for i, c := range r {
				cells[i] = c
			}
			row(tw, cells...)
		}
		_ = tw.Flush()
		for _, line := range strings.SplitAfter(tb.String(), "\n") {
			if line = strings.TrimRight(line, " \n"); line != "" {
				b.WriteString("  " + line + "\n")
			}
		}
	}
}

// statusIndent is how far the CLI sets a line of a hook's Job at each depth.
var statusIndent = []string{"  ", "    ", "      "}

// writeHookJob writes what the cluster says of a hook Job: its status, its Pods
// and the end of the failed container's log; nothing for a hook without one.
func writeHookJob(b *strings.Builder, h render.Hook, width int) {
	if h.Job == nil {
		return
	}
	b.WriteString(human.WrapHanging(fmt.Sprintf("  Job %s: %s", h.Name, h.Job.Text), width, "    "))
	for _, l := range h.Details {
		in := statusIndent[min(l.Depth, len(statusIndent)-1)]
		b.WriteString(human.WrapHanging(in+l.Text, width, in+"  "))
	}
	for _, line := range h.Log {
		fmt.Fprintf(b, "      | %s\n", line)
	}
}

// fitTable lays rows out under head in width columns, as kubectl's tables (three
// spaces between columns); the last column takes what is left, at least 20, and
// wraps under itself when longer. Other columns longer than a fair share are
// cut with "…".
func fitTable(head []string, rows [][]string, width int) string {
	const gap = 3
	n := len(head)
	widths := make([]int, n)
	for i, h := range head {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i := 0; i < n-1; i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	// The columns before the last share width with it: shrink the widest
	// until the last has 20 columns.
	for {
		used := 0
		for i := 0; i < n-1; i++ {
			used += widths[i] + gap
		}
		if width-used >= 20 {
			break
		}
		wi := 0
		for i := 1; i < n-1; i++ {
			if widths[i] > widths[wi] {
				wi = i
			}
		}
		if widths[wi] <= 8 {
			break
		}
		widths[wi]--
	}
	used := 0
	for i := 0; i < n-1; i++ {
		used += widths[i] + gap
	}
	last := max(width-used, 20)
	var b strings.Builder
	line := func(cells []string) {
		var pre strings.Builder
		for i := 0; i < n-1; i++ {
			pre.WriteString(padCut(cells[i], widths[i]))
			pre.WriteString(strings.Repeat(" ", gap))
		}
		parts := human.Cut(cells[n-1], last)
		for k, p := range parts {
			if k == 0 {
				b.WriteString(strings.TrimRight(pre.String()+p, " "))
			} else {
				b.WriteString(strings.Repeat(" ", used) + p)
			}
			b.WriteByte('\n')
		}
	}
	line(head)
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

// padCut pads s to w runes, or cuts it to w with "…".
func padCut(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n > w {
		return string([]rune(s)[:w-1]) + "…"
	}
	return s + strings.Repeat(" ", w-n)
}
