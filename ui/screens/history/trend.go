package history

import (
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/components/sizechart"
	"github.com/chunkview/chunkview/ui/components/table"
)

// trendLines draw the stored size per revision, then where the recent growth
// is heading against the store's limit on one revision. The sizes are a chart
// on an absolute scale up to the limit (sizechart), the forecast marked on it,
// where the screen has room for it and the table's least rows; a sparkline on
// a relative scale otherwise. When the limit is within fit.WarnWithin
// revisions they say which revision will not fit and what to do about it: the
// limit is per revision, so keeping fewer revisions does not help, and a person
// who reads only "prune the history" would lose it for nothing.
func (s *Screen) trendLines() []string {
	st := s.Styles
	var values []int64
	var points []fit.SizePoint
	var chartPoints []sizechart.Point
	for _, r := range s.rows {
		if r.Known && r.Summary.StoredBytes > 0 {
			values = append(values, r.Summary.StoredBytes)
			points = append(points, fit.SizePoint{Revision: r.Revision, Bytes: r.Summary.StoredBytes})
			chartPoints = append(chartPoints, sizechart.Point{Revision: r.Revision, Bytes: r.Summary.StoredBytes})
		} else {
			values = append(values, -1)
			chartPoints = append(chartPoints, sizechart.Point{Revision: r.Revision})
		}
	}
	g := fit.ProjectGrowth(points, s.limit())
	first := "Size per revision"
	if len(points) > 0 {
		first = fmt.Sprintf("Size per revision: %s → %s", human.Bytes(points[0].Bytes), human.Bytes(points[len(points)-1].Bytes))
	}
	if len(points) >= 2 {
		first += fmt.Sprintf(" (%s%s per revision lately)", sign(g.PerRevision), human.Bytes(int64(abs(g.PerRevision))))
	}
	var second string
	if common.IsHelmStore(s.store()) {
		second = s.helmLimitLine(g)
	} else {
		second = s.chunkedLimitLine(g)
	}
	var chart []string
	if rows := s.chartRows(g); rows > 0 && len(chartPoints) > 0 {
		m := sizechart.Model{Styles: st.SizeChart, Format: human.Bytes}
		m.SetSize(s.Width, rows)
		f := sizechart.Forecast{PerRevision: g.PerRevision, FailsAt: g.FailsAt}
		if g.RevisionsLeft > forecastHorizon {
			f.FailsAt = 0
		}
		m.SetData(chartPoints, g.Limit, s.limitName(g.Limit), f)
		if sel := s.selected(); sel != nil {
			m.Select(sel.Revision)
		}
		chart = strings.Split(m.View(), "\n")
	} else {
		sparkWidth := max(s.Width/3, 8)
		if len(values) > sparkWidth {
			values = values[len(values)-sparkWidth:]
		}
		first = strings.Replace(first, "Size per revision:", "Size per revision "+st.Spark.Render(table.Sparkline(values))+" ", 1)
	}
	lines := append([]string{table.CutLines(first, s.Width)}, chart...)
	lines = append(lines, table.CutLines(second, s.Width))
	if g.Warn() {
		advice := strings.Split(human.WrapCells(g.Advice(s.store()), s.Width), "\n")
		if room := s.Height - 4 - len(s.ownerLines()) - len(lines) - minHistoryRows; len(advice) > max(room, 1) {
			// A small terminal keeps its table: the advice's first words say
			// what matters most (fewer revisions do not help).
			advice = []string{table.Line1(s.Width, g.Advice(s.store()))}
		}
		for _, l := range advice {
			lines = append(lines, st.Dim.Render(l))
		}
	}
	return lines
}

// chartRows is how many lines the size chart gets: a quarter of the screen, up
// to maxChartRows, from what is left once the caption, the limit line, one
// line of advice and the table's least rows have theirs; 0 when that is fewer
// than the chart's least.
func (s *Screen) chartRows(g fit.Growth) int {
	fixed := 2 + len(s.ownerLines())
	if g.Warn() {
		fixed++
	}
	room := s.Height - 4 - fixed - minHistoryRows
	rows := min(max(s.Height/4, sizechart.MinRows), maxChartRows, room)
	if rows < sizechart.MinRows {
		return 0
	}
	return rows
}

// forecastHorizon is how many upgrades away the revision that will not fit may
// be for the chart to name it: further off, a small rate's extrapolation says
// little, and the limit reads as not in reach.
const forecastHorizon = 100

// maxChartRows bounds the size chart's height on a tall screen.
const maxChartRows = 12

// minHistoryRows is how many revisions the history keeps in view before the
// advice under the trend is cut to one line.
const minHistoryRows = 5

// chunkedLimitLine is the write limit of the chunked driver, MaxWriteChunks
// slices of the chunk size, and how near the release is to it.
func (s *Screen) chunkedLimitLine(g fit.Growth) string {
	st := s.Styles
	cfg := s.Client.Config().Driver
	chunkSize := int64(common.ChunkSizeOf(s.Client))
	switch {
	case g.Limit <= 0:
		return st.Dim.Render("No write limit set (--max-write-chunks 0): growth only adds chunk Secrets, each under 1 MiB.")
	case g.RevisionsLeft == 0:
		return st.ErrorBold.Render(fmt.Sprintf("✗ Over the write limit: %s > %d chunks × %s. The driver will refuse the next upgrade.", human.Bytes(g.Last), cfg.MaxWriteChunks, human.Bytes(chunkSize)))
	case g.Warn():
		return st.Warning.Render(fmt.Sprintf("⚠ In %s at this rate (revision %d) it outgrows the write limit, %d chunks × %s = %s.",
			human.Plural(g.RevisionsLeft, "upgrade", "upgrades"), g.FailsAt, cfg.MaxWriteChunks, human.Bytes(chunkSize), human.Bytes(g.Limit)))
	}
	return st.Dim.Render(fmt.Sprintf("Write limit %d chunks × %s = %s; %s.", cfg.MaxWriteChunks, human.Bytes(chunkSize), human.Bytes(g.Limit), farOff(g)))
}

// helmLimitLine is the limit of Helm's own drivers, one object of at most 1 MiB
// per revision, and how near the release is to it.
func (s *Screen) helmLimitLine(g fit.Growth) string {
	st := s.Styles
	obj := common.ObjectNoun(s.store())
	fill := float64(g.Last) * 100 / float64(max(g.Limit, 1))
	switch {
	case g.RevisionsLeft == 0:
		return st.ErrorBold.Render(fmt.Sprintf("✗ Over the limit: revision %d takes %s, more than one %s holds (%s). The next upgrade will fail.", g.FailsAt, human.Bytes(g.Last), obj, common.LimitSize(g.Limit)))
	case g.Warn():
		mark, style := common.FillStyle(st, max(fill/100, common.FillWarn))
		return style.Render(fmt.Sprintf("%s Revision %d will not fit at this rate: %.0f%% of the %s's %s now.", mark, g.FailsAt, fill, obj, common.LimitSize(g.Limit)))
	case g.Last == 0:
		return st.Dim.Render(fmt.Sprintf("Limit %s (one %s per revision).", common.LimitSize(g.Limit), obj))
	}
	return st.Dim.Render(fmt.Sprintf("Limit %s (one %s per revision): %.0f%% full, %s.", common.LimitSize(g.Limit), obj, fill, farOff(g)))
}

// limit is the most one revision of the release may take in its store: from its
// rows, else from the settings the rows were read with.
func (s *Screen) limit() int64 {
	if l := s.latest(); l != nil && l.LimitBytes > 0 {
		return l.LimitBytes
	}
	if common.IsHelmStore(s.store()) {
		return storage.HelmRecordLimit
	}
	return int64(s.Client.Config().Driver.MaxWriteChunks) * int64(common.ChunkSizeOf(s.Client))
}

// store is the store the screen reads: its rows', else its client's.
func (s *Screen) store() string {
	if len(s.rows) > 0 {
		return common.StoreOf(s.rows[0].Driver)
	}
	if ds := s.Client.Config().Drivers; len(ds) == 1 {
		return common.StoreOf(ds[0])
	}
	return kube.DriverChunked
}

// sign is the sign of a growth as sizes print it: what rounds to 0 B is +0 B,
// never -0 B.
func sign(f float64) string {
	if f <= -0.5 {
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

// farOff says where a limit not within fit.WarnWithin revisions is: further
// than that at the recent growth (the chart marks the revision), or not in
// reach at all.
func farOff(g fit.Growth) string {
	if g.FailsAt > 0 && g.RevisionsLeft <= forecastHorizon {
		return fmt.Sprintf("more than %d upgrades away", fit.WarnWithin)
	}
	return "not in reach at the recent rate"
}

// limitName is what the chart's legend calls the store's limit on one
// revision; the line under the chart says how it is made.
func (s *Screen) limitName(limit int64) string {
	switch {
	case common.IsHelmStore(s.store()):
		return fmt.Sprintf("%s limit %s", common.ObjectNoun(s.store()), common.LimitSize(limit))
	case limit <= 0:
		return "no write limit"
	}
	return "write limit " + common.LimitSize(limit)
}
