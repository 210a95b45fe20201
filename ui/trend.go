package ui

import (
	"fmt"

	"github.com/chunkview/chunkview/kube"
)

// trendLines draw the stored size per revision as a sparkline, and warn when the
// recent growth will cross the driver's write limit within a few revisions.
func (s *historyScreen) trendLines() []string {
	st := s.styles
	var values []int64
	var points []kube.SizePoint
	for _, r := range s.rows {
		if r.Known && r.Summary.StoredBytes > 0 {
			values = append(values, r.Summary.StoredBytes)
			points = append(points, kube.SizePoint{Revision: r.Revision, Bytes: r.Summary.StoredBytes})
		} else {
			values = append(values, -1)
		}
	}
	sparkWidth := max(s.width/3, 8)
	if len(values) > sparkWidth {
		values = values[len(values)-sparkWidth:]
	}
	first := "Size per revision " + st.Spark.Render(sparkline(values))
	if len(points) > 0 {
		first += fmt.Sprintf("  %s → %s", size(points[0].Bytes), size(points[len(points)-1].Bytes))
	}
	cfg := s.client.Config().Driver
	chunkSize := int64(chunkSizeOf(s.client))
	limit := int64(cfg.MaxWriteChunks) * chunkSize
	g := kube.ProjectGrowth(points, limit)
	if len(points) >= 2 {
		first += fmt.Sprintf(" (%s%s per revision lately)", sign(g.PerRevision), size(int64(abs(g.PerRevision))))
	}
	var second string
	switch {
	case cfg.MaxWriteChunks == 0:
		second = st.Dim.Render("No write limit set (--max-write-chunks 0): growth only adds chunk Secrets, each under 1 MiB.")
	case g.RevisionsLeft == 0:
		second = st.ErrorBold.Render(fmt.Sprintf("✗ Over the write limit: %s > %d chunks × %s. The driver will refuse the next upgrade.", size(g.Last), cfg.MaxWriteChunks, size(chunkSize)))
	case g.Warn():
		second = st.Warning.Render(fmt.Sprintf("⚠ In %s at this rate (revision %d) it outgrows the write limit, %d chunks × %s = %s.",
			plural(g.RevisionsLeft, "upgrade", "upgrades"), s.latest().Revision+g.RevisionsLeft, cfg.MaxWriteChunks, size(chunkSize), size(limit)))
	default:
		second = st.Dim.Render(fmt.Sprintf("Write limit %d chunks × %s = %s; not in reach at the recent rate.", cfg.MaxWriteChunks, size(chunkSize), size(limit)))
	}
	return []string{cutLines(first, s.width), cutLines(second, s.width)}
}

func sign(f float64) string {
	if f < 0 {
		return "-"
	}
	return "+"
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
