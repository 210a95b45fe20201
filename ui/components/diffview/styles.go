package diffview

import "charm.land/lipgloss/v2"

// Styles are what a diff is drawn with. Build them once (DefaultStyles);
// rendering only applies them.
type Styles struct {
	// Title is the diff's first line; Dim the notes, the counter and the
	// way back; OK a diff without differences; Warning an object that could
	// not be read; Error why there is no diff.
	Title, Dim, OK, Warning, Error lipgloss.Style
	// Masked marks a masked secret, so that it stands out.
	Masked lipgloss.Style
	// Add, Del and Hunk colour a unified diff's lines and the resources added,
	// removed and changed; File its file headers; Section a change's heading.
	Add, Del, Hunk, File, Section lipgloss.Style
}

// DefaultStyles returns the diff's styles, in the ANSI 256 colours of the rest
// of the UI. Every change also has its mark (+, -, ~), so a diff reads without
// colour.
func DefaultStyles() Styles {
	base := lipgloss.NewStyle()
	var (
		accent = lipgloss.Color("63")
		green  = lipgloss.Color("42")
		red    = lipgloss.Color("196")
		yellow = lipgloss.Color("214")
		cyan   = lipgloss.Color("44")
		gray   = lipgloss.Color("245")
		dark   = lipgloss.Color("238")
	)
	return Styles{
		Title:   base.Bold(true).Foreground(accent),
		Dim:     base.Foreground(gray),
		OK:      base.Foreground(green),
		Warning: base.Foreground(yellow),
		Error:   base.Foreground(red),
		Masked:  base.Foreground(yellow).Background(dark),
		Add:     base.Foreground(green),
		Del:     base.Foreground(red),
		Hunk:    base.Foreground(cyan),
		File:    base.Foreground(gray).Bold(true),
		Section: base.Foreground(accent).Bold(true),
	}
}
