package sizechart

import "charm.land/lipgloss/v2"

// Styles are what the chart draws with. Build them once (DefaultStyles); View
// only applies them.
type Styles struct {
	// Axis draws the scale and its labels.
	Axis lipgloss.Style
	// Bar is a revision under the warning share of the limit, Near one past
	// it, Over one past the error share or over the limit.
	Bar, Near, Over lipgloss.Style
	// Projected is a revision the forecast draws; Failing the one it says will
	// not fit.
	Projected, Failing lipgloss.Style
	// Limit is the limit line.
	Limit lipgloss.Style
	// Label is a revision's number, Selected the selected revision's.
	Label, Selected lipgloss.Style
	// Unknown marks a revision whose size is not known.
	Unknown lipgloss.Style
	// Legend is the line under the chart.
	Legend lipgloss.Style
}

// DefaultStyles returns the chart's styles, in the ANSI 256 colours of the
// rest of the UI. Every state also has its own glyph (█ a revision, ░ the
// forecast, ▓ the revision that will not fit, ╌ the limit, ? a size not known),
// so the chart reads without colour.
func DefaultStyles() Styles {
	base := lipgloss.NewStyle()
	var (
		red    = lipgloss.Color("196")
		yellow = lipgloss.Color("214")
		blue   = lipgloss.Color("39")
		gray   = lipgloss.Color("245")
		white  = lipgloss.Color("255")
	)
	return Styles{
		Axis:      base.Foreground(gray),
		Bar:       base.Foreground(blue),
		Near:      base.Foreground(yellow),
		Over:      base.Foreground(red),
		Projected: base.Foreground(gray),
		Failing:   base.Foreground(red),
		Limit:     base.Foreground(red),
		Label:     base.Foreground(gray),
		Selected:  base.Foreground(white).Bold(true),
		Unknown:   base.Foreground(gray),
		Legend:    base.Foreground(gray),
	}
}
