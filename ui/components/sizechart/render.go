package sizechart

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Shares of the limit past which a bar is drawn as near it, then as over it:
// those of the rest of the UI's fill gauges.
const (
	nearShare = 0.80
	overShare = 0.95
)

// Glyphs. A bar rises in eighths of a row; the forecast and the revision that
// will not fit fill whole cells with shades of their own.
var eighths = []rune(" ▁▂▃▄▅▆▇█")

const (
	glyphProjected = '░'
	glyphFailing   = '▓'
	glyphLimit     = '╌'
	glyphUnknown   = '?'
	glyphBase      = '─'
)

// kind is what a column shows.
type kind int

const (
	actual    kind = iota // a stored revision
	projected             // a revision the forecast draws
	failing               // the revision that will not fit, projected
)

// column is one revision in the chart.
type column struct {
	rev   int
	bytes int64 // 0 or less: not known
	kind  kind
	// over marks a stored revision over its limit, or the one the forecast says
	// will not fit.
	over bool
}

// run is a stretch of a line in one style.
type run struct {
	st   *lipgloss.Style
	text strings.Builder
}

// line builds one line of the chart from runs of styled text.
type line struct{ runs []*run }

func (l *line) add(st *lipgloss.Style, s string) {
	if n := len(l.runs); n > 0 && l.runs[n-1].st == st {
		l.runs[n-1].text.WriteString(s)
		return
	}
	r := &run{st: st}
	r.text.WriteString(s)
	l.runs = append(l.runs, r)
}

func (l *line) String() string {
	var b strings.Builder
	for _, r := range l.runs {
		if r.st == nil {
			b.WriteString(r.text.String())
			continue
		}
		b.WriteString(r.st.Render(r.text.String()))
	}
	return b.String()
}

// columns are the stored revisions, then the forecast's up to the one that
// will not fit when that is within MaxProjected; beyond is that revision when it
// is further off.
func (m *Model) columns() (cols []column, beyond int) {
	var last *Point
	for i, p := range m.points {
		over := m.limit > 0 && p.Bytes > m.limit || p.Revision == m.forecast.FailsAt
		cols = append(cols, column{rev: p.Revision, bytes: p.Bytes, kind: actual, over: over})
		if p.Bytes > 0 {
			last = &m.points[i]
		}
	}
	f, latest := m.forecast, m.points[len(m.points)-1].Revision
	if f.FailsAt <= latest || f.PerRevision <= 0 || last == nil {
		return cols, 0
	}
	if f.FailsAt-latest > MaxProjected {
		return cols, f.FailsAt
	}
	for r := latest + 1; r <= f.FailsAt; r++ {
		b := int64(math.Round(float64(last.Bytes) + float64(r-last.Revision)*f.PerRevision))
		k := projected
		if r == f.FailsAt {
			k = failing
		}
		cols = append(cols, column{rev: r, bytes: b, kind: k, over: r == f.FailsAt})
	}
	return cols, 0
}

// lines draws the chart.
func (m *Model) lines() []string {
	st := &m.Styles
	cols, beyond := m.columns()
	plotRows := m.rows - 2
	var top int64 = 1
	for _, c := range cols {
		top = max(top, c.bytes)
	}
	top = max(top, m.limit)
	// The scale names the limit, or the top when there is none, and zero.
	scaleLabel := m.Format(top)
	if m.limit > 0 {
		scaleLabel = m.Format(m.limit)
	}
	axisW := max(ansi.StringWidth(scaleLabel), 1)
	arrow := ""
	if beyond > 0 {
		arrow = fmt.Sprintf(" → %d✗", beyond)
	}
	plotW := m.width - axisW - 1
	// As wide bars as fit, each followed by a gap; past one cell each, the
	// oldest revisions give way.
	cw := 1
	for _, w := range []int{3, 2, 1} {
		if len(cols)*(w+1)+ansi.StringWidth(arrow) <= plotW {
			cw = w
			break
		}
	}
	for len(cols) > 1 && len(cols)*(cw+1)+ansi.StringWidth(arrow) > plotW && cols[0].kind == actual && cols[1].kind == actual {
		cols = cols[1:]
	}
	heights := make([]int, len(cols))
	for i, c := range cols {
		if c.bytes > 0 {
			heights[i] = max(int(math.Round(float64(c.bytes)*float64(plotRows*8)/float64(top))), 1)
		}
	}
	limitRow := 0 // 1-based from the bottom; 0: no line
	if m.limit > 0 {
		limitRow = min(max(int(math.Round(float64(m.limit)*float64(plotRows)/float64(top))), 1), plotRows)
	}

	var out []string
	for row := plotRows; row >= 1; row-- {
		var l line
		label, tick := "", "│"
		if row == limitRow || (limitRow == 0 && row == plotRows) {
			label, tick = scaleLabel, "┤"
		}
		l.add(&st.Axis, fmt.Sprintf("%*s%s", axisW, label, tick))
		for i, c := range cols {
			fill := min(max(heights[i]-(row-1)*8, 0), 8)
			cell, cst := m.cell(c, fill, row == limitRow, row == 1)
			for k := 0; k < cw; k++ {
				if k > 0 && c.bytes <= 0 && row == 1 {
					// One question mark says it.
					cell, cst = " ", nil
				}
				l.add(cst, cell)
			}
			if row == limitRow {
				l.add(&st.Limit, string(glyphLimit))
			} else {
				l.add(nil, " ")
			}
		}
		out = append(out, l.String())
	}
	out = append(out, m.labelLine(cols, cw, axisW, arrow))
	out = append(out, m.legend(cols, beyond))
	for i, l := range out {
		// Narrower than one bar and its scale: cut, never wrapped.
		out[i] = ansi.Truncate(l, m.width, "")
	}
	return out
}

// cell is the glyph and style of one cell of column c, whose bar fills fill
// eighths of this row.
func (m *Model) cell(c column, fill int, limitRow, bottom bool) (string, *lipgloss.Style) {
	st := &m.Styles
	switch {
	case c.bytes <= 0 && bottom:
		return string(glyphUnknown), &st.Unknown
	case c.kind == projected && fill >= 4:
		return string(glyphProjected), &st.Projected
	case c.kind == failing && fill >= 4:
		return string(glyphFailing), &st.Failing
	case c.kind == actual && fill > 0:
		return string(eighths[fill]), m.barStyle(c)
	case limitRow:
		return string(glyphLimit), &st.Limit
	}
	return " ", nil
}

// barStyle is a stored revision's colour by its share of the limit.
func (m *Model) barStyle(c column) *lipgloss.Style {
	st := &m.Styles
	switch {
	case m.limit <= 0:
		return &st.Bar
	case c.over || float64(c.bytes) >= overShare*float64(m.limit):
		return &st.Over
	case float64(c.bytes) >= nearShare*float64(m.limit):
		return &st.Near
	}
	return &st.Bar
}

// labelLine is the base of the chart with the revisions' numbers under their
// bars, as many as fit without touching: the one that will not fit, the latest,
// the oldest and the selected first, then the others from the left.
func (m *Model) labelLine(cols []column, cw, axisW int, arrow string) string {
	st := &m.Styles
	w := len(cols)*(cw+1) + ansi.StringWidth(arrow)
	cells := make([]rune, w)
	owner := make([]int, w) // which column's label a cell shows, -1 none
	for i := range cells {
		cells[i], owner[i] = glyphBase, -1
	}
	text := func(c column) string {
		s := strconv.Itoa(c.rev)
		if c.over {
			s += "✗"
		}
		return s
	}
	place := func(i int) {
		s := []rune(text(cols[i]))
		end := i*(cw+1) + cw // one past the bar's last cell
		start := end - len(s)
		if start < 0 {
			start, end = 0, len(s)
		}
		for x := start - 1; x <= end; x++ {
			if x >= 0 && x < w && owner[x] >= 0 {
				return // would touch a label placed before
			}
		}
		for k, r := range s {
			if start+k < w {
				cells[start+k], owner[start+k] = r, i
			}
		}
	}
	var order []int
	for i, c := range cols {
		if c.over {
			order = append(order, i)
		}
	}
	lastActual := 0
	for i, c := range cols {
		if c.kind == actual {
			lastActual = i
		}
	}
	order = append(order, lastActual, 0)
	for i, c := range cols {
		if c.rev == m.selected {
			order = append(order, i)
		}
	}
	for i := range cols {
		order = append(order, i)
	}
	for _, i := range order {
		place(i)
	}
	var l line
	l.add(&st.Axis, fmt.Sprintf("%*s└", axisW, "0"))
	for x := 0; x < len(cols)*(cw+1); x++ {
		switch i := owner[x]; {
		case i < 0:
			l.add(&st.Axis, string(cells[x]))
		case cols[i].rev == m.selected:
			l.add(&st.Selected, string(cells[x]))
		case cols[i].over:
			l.add(&st.Over, string(cells[x]))
		default:
			l.add(&st.Label, string(cells[x]))
		}
	}
	if arrow != "" {
		l.add(&st.Failing, arrow)
	}
	return l.String()
}

// legend says what the glyphs are: the limit, the forecast, the revision that
// will not fit, sizes not known; cut to the width.
func (m *Model) legend(cols []column, beyond int) string {
	st := &m.Styles
	var parts []string
	if m.limit > 0 {
		parts = append(parts, st.Limit.Render(string(glyphLimit))+" "+st.Legend.Render(m.limitName))
	} else if m.limitName != "" {
		parts = append(parts, st.Legend.Render(m.limitName))
	}
	drawn := false
	for _, c := range cols {
		drawn = drawn || c.kind != actual
	}
	if f := m.forecast; drawn || beyond > 0 {
		glyph := st.Projected.Render(string(glyphProjected))
		if !drawn {
			glyph = st.Failing.Render("→")
		}
		parts = append(parts, glyph+" "+st.Legend.Render(fmt.Sprintf("+%s a revision", m.Format(int64(math.Round(f.PerRevision))))))
	}
	switch f, latest := m.forecast.FailsAt, m.points[len(m.points)-1].Revision; {
	case f > latest:
		parts = append(parts, st.Failing.Render("✗")+" "+st.Legend.Render(fmt.Sprintf("revision %d will not fit", f)))
	case f > 0:
		parts = append(parts, st.Failing.Render("✗")+" "+st.Legend.Render(fmt.Sprintf("revision %d is over the limit", f)))
	}
	for _, c := range cols {
		if c.bytes <= 0 {
			parts = append(parts, st.Unknown.Render(string(glyphUnknown))+" "+st.Legend.Render("size not known"))
			break
		}
	}
	return ansi.Truncate(strings.Join(parts, "  "), m.width, "…")
}

// View draws the chart: Rows lines, none wider than the width.
func (m Model) View() string {
	if m.width <= 0 || len(m.points) == 0 {
		return ""
	}
	return strings.Join(m.lines(), "\n")
}
