package sizechart

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// plain renders m without colour.
func plain(m Model) []string {
	return strings.Split(ansi.Strip(m.View()), "\n")
}

// TestChart draws small charts whose every cell is worked out by hand: bars in
// eighths of a row on a scale from zero to the limit (or to the tallest bar
// past it), the limit as a line, the forecast as shaded bars up to the revision
// that will not fit, or named past the end when it is further off, sizes not
// known as "?", and the oldest revisions dropped when the width runs out.
func TestChart(t *testing.T) {
	for _, tc := range []struct {
		name      string
		points    []Point
		limit     int64
		limitName string
		f         Forecast
		width     int
		rows      int
		want      []string
	}{
		{
			// 50 and 100 of 100 on two rows of 8 eighths: 8 and 16.
			name: "two revisions, the second at the limit", points: []Point{{1, 50}, {2, 100}}, limit: 100, limitName: "limit 100 B",
			width: 20, rows: 4,
			want: []string{
				"100 B┤╌╌╌╌███╌",
				"     │███ ███ ",
				"    0└──1───2─",
				"╌ limit 100 B",
			},
		},
		{
			// 60, 80, then the forecast's 100 and 120 on a scale of 120:
			// 8, 11, 13 and 16 eighths; the limit's row is round(100×2/120) = 2.
			name: "the forecast drawn to the revision that will not fit", points: []Point{{1, 60}, {2, 80}}, limit: 100, limitName: "limit 100 B",
			f: Forecast{PerRevision: 20, FailsAt: 4}, width: 30, rows: 4,
			want: []string{
				"100 B┤╌╌╌╌▃▃▃╌░░░╌▓▓▓╌",
				"     │███ ███ ░░░ ▓▓▓ ",
				"    0└──1───2───3──4✗─",
				"╌ limit 100 B  ░ +20 B a revi…",
			},
		},
		{
			// 40 of 100: 6.4 eighths, 6; the failing revision is 13 past the
			// latest, further than the chart draws.
			name: "a size not known, the forecast named past the end", points: []Point{{3, 0}, {4, 40}}, limit: 100, limitName: "limit 100 B",
			f: Forecast{PerRevision: 5, FailsAt: 17}, width: 60, rows: 4,
			want: []string{
				"100 B┤╌╌╌╌╌╌╌╌",
				"     │?   ▆▆▆ ",
				"    0└──3───4─ → 17✗",
				"╌ limit 100 B  → +5 B a revision  ✗ revision 17 will not fi…",
			},
		},
		{
			// No limit: the scale runs to the tallest bar, labelled on the
			// top row; three rows of 8: 12 and 24 eighths.
			name: "no limit", points: []Point{{1, 1024}, {2, 2048}}, limitName: "no write limit",
			width: 20, rows: 5,
			want: []string{
				"2.0 KiB┤    ███ ",
				"       │▄▄▄ ███ ",
				"       │███ ███ ",
				"      0└──1───2─",
				"no write limit",
			},
		},
		{
			// Six revisions in 12 columns: bars of one cell; the labels that
			// would touch are left out, the latest and the oldest kept.
			name: "narrow: one cell a bar, labels that fit", points: []Point{{8, 10}, {9, 20}, {10, 30}, {11, 40}, {12, 50}, {13, 60}}, limit: 60, limitName: "limit",
			width: 17, rows: 4,
			want: []string{
				"60 B┤╌╌╌╌╌╌▃╌▅╌█╌",
				"    │▃ ▅ █ █ █ █ ",
				"   0└8─9──11──13─",
				"╌ limit",
			},
		},
		{
			// Room for four one-cell bars: the two oldest revisions go.
			name: "too many revisions: the oldest go", points: []Point{{1, 10}, {2, 20}, {3, 30}, {4, 40}, {5, 50}, {6, 60}}, limit: 60, limitName: "limit",
			width: 13, rows: 4,
			want: []string{
				"60 B┤╌╌▃╌▅╌█╌",
				"    │█ █ █ █ ",
				"   0└3─4─5─6─",
				"╌ limit",
			},
		},
		{
			// Over the limit already: the scale runs to the tallest bar, 120,
			// the limit's row is round(100×2/120) = 2, 90 is 12 eighths.
			name: "over the limit", points: []Point{{1, 90}, {2, 120}}, limit: 100, limitName: "limit",
			f: Forecast{PerRevision: 30, FailsAt: 2}, width: 40, rows: 4,
			want: []string{
				"100 B┤▄▄▄╌███╌",
				"     │███ ███ ",
				"    0└──1──2✗─",
				"╌ limit  ✗ revision 2 is over the limit",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			m.SetSize(tc.width, tc.rows)
			m.SetData(tc.points, tc.limit, tc.limitName, tc.f)
			got := plain(m)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestChartFits: whatever the data and size, the chart draws its rows and no
// line wider than its width, and marks the selected revision's number in its
// own style.
func TestChartFits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		n := 1 + r.IntN(40)
		var pts []Point
		for k := 0; k < n; k++ {
			b := int64(r.IntN(2_000_000))
			if r.IntN(10) == 0 {
				b = 0
			}
			pts = append(pts, Point{Revision: 1 + k + r.IntN(2), Bytes: b})
		}
		limit := []int64{0, 1 << 20, 11 * 1_040_384}[r.IntN(3)]
		f := Forecast{PerRevision: float64(r.IntN(200_000)) - 50_000, FailsAt: r.IntN(60)}
		w, rows := 1+r.IntN(200), r.IntN(14)
		m := New()
		m.SetSize(w, rows)
		m.SetData(pts, limit, "Secret limit 1.0 MiB", f)
		m.Select(pts[r.IntN(n)].Revision)
		lines := strings.Split(m.View(), "\n")
		if len(lines) != max(rows, MinRows) {
			t.Fatalf("case %d: %d lines, want %d", i, len(lines), max(rows, MinRows))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Fatalf("case %d (width %d, %d points, forecast %+v): line %q is %d wide", i, w, n, f, ansi.Strip(l), ansi.StringWidth(l))
			}
		}
	}
}

// TestChartStyles: bars take their colour from their share of the limit, the
// forecast and the limit line theirs, and the selected revision's number is
// drawn selected.
func TestChartStyles(t *testing.T) {
	m := New()
	st := m.Styles
	m.SetSize(40, 5)
	m.SetData([]Point{{1, 10}, {2, 85}, {3, 99}}, 100, "limit", Forecast{PerRevision: 10, FailsAt: 5})
	m.Select(2)
	out := m.View()
	for what, want := range map[string]string{
		"a bar under 80%":     st.Bar.Render("▂▂▂"),
		"a bar past 80%":      st.Near.Render("███"),
		"a bar past 95%":      st.Over.Render("███"),
		"the forecast":        st.Projected.Render("░░░"),
		"the failing one":     st.Failing.Render("▓▓▓"),
		"the limit line":      st.Limit.Render("╌"),
		"the selected number": st.Selected.Render("2"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("%s: want %q in\n%q", what, want, out)
		}
	}
}
