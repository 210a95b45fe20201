// Package sizechart draws what each revision of a release takes in its store as
// a bar chart on an absolute scale: from zero to the store's limit on one
// revision, drawn as a line, so that a release at 90% of its limit looks it. The
// forecast continues the bars to the revision that will not fit, when that is
// near, or names it at the chart's end when it is further.
//
// It is a component in the manner of charm's bubbles: a Model with SetSize,
// SetData and View, and Styles built once by DefaultStyles.
package sizechart

import (
	"github.com/dustin/go-humanize"
)

// Point is one revision's stored size.
type Point struct {
	Revision int
	// Bytes is what the revision takes in its store; 0 or less when not known.
	Bytes int64
}

// Forecast is where the size heads: PerRevision bytes a revision from the last
// known point, and FailsAt the first revision that will not fit (0: none in
// sight).
type Forecast struct {
	PerRevision float64
	FailsAt     int
}

// MaxProjected is how many revisions past the latest the chart draws (as many
// as the history warns within): a revision that will not fit further off is
// named, not drawn.
const MaxProjected = 5

// MinRows is the fewest lines View draws: two rows of bars, the revisions
// under them and the legend.
const MinRows = 4

// Model is one size chart.
type Model struct {
	// Styles are what it draws with.
	Styles Styles
	// Format writes a byte count on the scale and in the legend (IEC units by
	// default: 1.0 MiB).
	Format func(int64) string

	width, rows int
	points      []Point
	limit       int64
	limitName   string
	forecast    Forecast
	selected    int
}

// New returns a chart with the default styles and format.
func New() Model {
	return Model{Styles: DefaultStyles(), Format: func(n int64) string { return humanize.IBytes(uint64(max(n, 0))) }}
}

// SetSize sets the chart's width in columns and the lines it draws (at least
// MinRows): its bars take all but two, the revisions' numbers and the legend.
func (m *Model) SetSize(width, rows int) {
	m.width, m.rows = width, max(rows, MinRows)
}

// SetData sets the revisions' sizes, oldest first, the store's limit on one
// revision (0: none) and what the legend calls it ("Secret limit 1.0 MiB"),
// and the forecast.
func (m *Model) SetData(points []Point, limit int64, limitName string, f Forecast) {
	m.points, m.limit, m.limitName, m.forecast = points, limit, limitName, f
}

// Select marks the revision whose number is drawn as selected (0: none).
func (m *Model) Select(rev int) { m.selected = rev }

// Rows is how many lines View draws.
func (m Model) Rows() int { return m.rows }
