package ui

import (
	"fmt"
	"math"
)

// sizePoint is the stored size of one revision.
type sizePoint struct {
	rev   int
	bytes int64
}

// growth is where a release's stored size is heading.
type growth struct {
	// perRevision is the growth per revision, fitted over the recent revisions.
	perRevision float64
	// last is the latest known size.
	last int64
	// limit is the largest size the driver will write (0: none).
	limit int64
	// revisionsLeft counts the revisions from the latest to the first one over
	// limit at this rate (1: the next one); 0 when the latest is already over it,
	// -1 when there is no limit or no growth.
	revisionsLeft int
}

// trendWindow is how many recent revisions the growth is fitted over.
const trendWindow = 5

// warnWithin is how close the limit must be, in revisions, to warn.
const warnWithin = 5

// projectGrowth fits a line through the last trendWindow known sizes (least
// squares over revision numbers, which may have gaps) and extrapolates it to the
// limit. With fewer than two points it reports no growth.
func projectGrowth(points []sizePoint, limit int64) growth {
	g := growth{limit: limit, revisionsLeft: -1}
	if len(points) == 0 {
		return g
	}
	g.last = points[len(points)-1].bytes
	if limit > 0 && g.last > limit {
		g.revisionsLeft = 0
	}
	if len(points) > trendWindow {
		points = points[len(points)-trendWindow:]
	}
	if len(points) < 2 {
		return g
	}
	var sx, sy, sxx, sxy float64
	n := float64(len(points))
	for _, p := range points {
		x, y := float64(p.rev), float64(p.bytes)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return g
	}
	g.perRevision = (n*sxy - sx*sy) / den
	if limit <= 0 || g.perRevision <= 0 || g.revisionsLeft == 0 {
		return g
	}
	// The first k with last + k*rate > limit.
	g.revisionsLeft = int(math.Floor(float64(limit-g.last)/g.perRevision)) + 1
	return g
}

// warn reports whether the limit is near enough to warn about.
func (g growth) warn() bool {
	return g.limit > 0 && g.revisionsLeft >= 0 && g.revisionsLeft <= warnWithin
}

// trendLines draw the stored size per revision as a sparkline, and warn when the
// recent growth will cross the driver's write limit within a few revisions.
func (s *historyScreen) trendLines() []string {
	st := s.styles
	var values []int64
	var points []sizePoint
	for _, r := range s.rows {
		if r.Known && r.Summary.StoredBytes > 0 {
			values = append(values, r.Summary.StoredBytes)
			points = append(points, sizePoint{rev: r.Revision, bytes: r.Summary.StoredBytes})
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
		first += fmt.Sprintf("  %s → %s", size(points[0].bytes), size(points[len(points)-1].bytes))
	}
	cfg := s.client.Config().Driver
	chunkSize := int64(chunkSizeOf(s.client))
	limit := int64(cfg.MaxWriteChunks) * chunkSize
	g := projectGrowth(points, limit)
	if len(points) >= 2 {
		first += fmt.Sprintf(" (%s%s per revision lately)", sign(g.perRevision), size(int64(abs(g.perRevision))))
	}
	var second string
	switch {
	case cfg.MaxWriteChunks == 0:
		second = st.Dim.Render("No write limit set (--max-write-chunks 0): growth only adds chunk Secrets, each under 1 MiB.")
	case g.revisionsLeft == 0:
		second = st.ErrorBold.Render(fmt.Sprintf("✗ Over the write limit: %s > %d chunks × %s. The driver will refuse the next upgrade.", size(g.last), cfg.MaxWriteChunks, size(chunkSize)))
	case g.warn():
		second = st.Warning.Render(fmt.Sprintf("⚠ In %s at this rate (revision %d) it outgrows the write limit, %d chunks × %s = %s.",
			plural(g.revisionsLeft, "upgrade", "upgrades"), s.latest().Revision+g.revisionsLeft, cfg.MaxWriteChunks, size(chunkSize), size(limit)))
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
