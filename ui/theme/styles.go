package theme

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/ui/components/dialog"
	"github.com/chunkview/chunkview/ui/components/diffview"
	"github.com/chunkview/chunkview/ui/components/picker"
	"github.com/chunkview/chunkview/ui/components/search"
	"github.com/chunkview/chunkview/ui/components/sizechart"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/components/viewer"
)

// Styles are every style the UI draws with. They are built once, by DefaultStyles,
// and shared by all screens; View functions only apply them.
type Styles struct {
	// Chrome around every screen.
	Header        lipgloss.Style
	AppName       lipgloss.Style
	HeaderInfo    lipgloss.Style
	Crumb         lipgloss.Style
	BadgeDemo     lipgloss.Style
	BadgeReadOnly lipgloss.Style
	BadgeWatch    lipgloss.Style
	BadgePoll     lipgloss.Style
	BadgeOffline  lipgloss.Style
	Spinner       lipgloss.Style
	StatusLine    lipgloss.Style
	Help          help.Styles

	// Text.
	Title     lipgloss.Style
	Dim       lipgloss.Style
	Bold      lipgloss.Style
	Error     lipgloss.Style
	ErrorBold lipgloss.Style
	Warning   lipgloss.Style
	OK        lipgloss.Style
	Accent    lipgloss.Style
	Explainer lipgloss.Style

	// Tables.
	// TableHeader, Selected and Cursor are the table's own (Table), for the
	// tables the screens draw.
	TableHeader lipgloss.Style
	Selected    lipgloss.Style
	Cursor      lipgloss.Style
	Marked      lipgloss.Style

	// Release statuses.
	StatusDeployed   lipgloss.Style
	StatusFailed     lipgloss.Style
	StatusPending    lipgloss.Style
	StatusSuperseded lipgloss.Style
	StatusBroken     lipgloss.Style
	StatusOther      lipgloss.Style

	// Gauges, bars and sparklines.
	GaugeLow   lipgloss.Style
	GaugeMid   lipgloss.Style
	GaugeHigh  lipgloss.Style
	GaugeEmpty lipgloss.Style
	Spark      lipgloss.Style
	// SizeChart is the history's chart of bytes per revision.
	SizeChart sizechart.Styles

	// The components' own: each draws with its part.
	Table  table.Styles
	Viewer viewer.Styles
	Search search.Styles
	Diff   diffview.Styles

	// Secret states in a chunk layout.
	StateOK      lipgloss.Style
	StateMissing lipgloss.Style
	StateCorrupt lipgloss.Style
	StateOrphan  lipgloss.Style

	// Tabs.
	TabActive   lipgloss.Style
	TabInactive lipgloss.Style

	// YAML.
	YAMLKey     lipgloss.Style
	YAMLString  lipgloss.Style
	YAMLNumber  lipgloss.Style
	YAMLLiteral lipgloss.Style
	YAMLComment lipgloss.Style
	YAMLPunct   lipgloss.Style
	Masked      lipgloss.Style

	// Dialogs and the questions under a screen.
	Dialog dialog.Styles
	Picker picker.Styles
	Prompt lipgloss.Style
}

// Colours, by role. Bubble Tea downsamples them to what the terminal supports.
var (
	colorAccent  = lipgloss.Color("63")
	colorGreen   = lipgloss.Color("42")
	colorRed     = lipgloss.Color("196")
	colorYellow  = lipgloss.Color("214")
	colorBlue    = lipgloss.Color("39")
	colorCyan    = lipgloss.Color("44")
	colorMagenta = lipgloss.Color("170")
	colorGray    = lipgloss.Color("245")
	colorDark    = lipgloss.Color("238")
	colorWhite   = lipgloss.Color("255")
)

// DefaultStyles returns the UI's styles. They use ANSI 256 colours, which read on
// dark and light backgrounds alike; every state that matters also has a word or an
// icon, so the screens read without colour too.
func DefaultStyles() Styles {
	s := Styles{}
	base := lipgloss.NewStyle()

	s.Header = base.Background(colorDark).Foreground(colorWhite)
	s.AppName = base.Background(colorAccent).Foreground(colorWhite).Bold(true).Padding(0, 1)
	s.HeaderInfo = base.Background(colorDark).Foreground(colorWhite).Padding(0, 1)
	s.Crumb = base.Background(colorDark).Foreground(colorCyan).Bold(true).Padding(0, 1)
	s.BadgeDemo = base.Background(colorMagenta).Foreground(colorWhite).Bold(true).Padding(0, 1)
	s.BadgeReadOnly = base.Background(colorYellow).Foreground(lipgloss.Color("0")).Bold(true).Padding(0, 1)
	s.BadgeWatch = base.Background(colorGreen).Foreground(lipgloss.Color("0")).Padding(0, 1)
	s.BadgePoll = base.Background(colorYellow).Foreground(lipgloss.Color("0")).Padding(0, 1)
	s.BadgeOffline = base.Background(colorRed).Foreground(colorWhite).Bold(true).Padding(0, 1)
	s.Spinner = base.Foreground(colorMagenta).Background(colorDark)
	s.StatusLine = base.Foreground(colorGray)

	s.Help = help.DefaultDarkStyles()
	s.Help.ShortKey = base.Foreground(colorGray).Bold(true)
	s.Help.FullKey = base.Foreground(colorGray).Bold(true)

	s.Title = base.Bold(true).Foreground(colorAccent)
	s.Dim = base.Foreground(colorGray)
	s.Bold = base.Bold(true)
	s.Error = base.Foreground(colorRed)
	s.ErrorBold = base.Foreground(colorRed).Bold(true)
	s.Warning = base.Foreground(colorYellow)
	s.OK = base.Foreground(colorGreen)
	s.Accent = base.Foreground(colorAccent)
	s.Explainer = base.Foreground(colorGray).Italic(true)

	s.Table = table.DefaultStyles()
	s.TableHeader, s.Selected, s.Cursor = s.Table.Header, s.Table.Selected, s.Table.Cursor
	s.Marked = base.Foreground(colorCyan).Bold(true)

	s.StatusDeployed = base.Foreground(colorGreen)
	s.StatusFailed = base.Foreground(colorRed).Bold(true)
	s.StatusPending = base.Foreground(colorYellow).Bold(true)
	s.StatusSuperseded = base.Foreground(colorGray)
	s.StatusBroken = base.Foreground(colorWhite).Background(colorRed).Bold(true)
	s.StatusOther = base.Foreground(colorBlue)

	s.GaugeLow = base.Foreground(colorGreen)
	s.GaugeMid = base.Foreground(colorYellow)
	s.GaugeHigh = base.Foreground(colorRed)
	s.GaugeEmpty = base.Foreground(colorDark)
	s.Spark = base.Foreground(colorBlue)
	s.SizeChart = sizechart.DefaultStyles()
	s.Viewer = viewer.DefaultStyles()
	s.Search = search.DefaultStyles()
	s.Diff = diffview.DefaultStyles()

	s.StateOK = base.Foreground(colorGreen)
	s.StateMissing = base.Foreground(colorWhite).Background(colorRed).Bold(true)
	s.StateCorrupt = base.Foreground(colorWhite).Background(colorMagenta).Bold(true)
	s.StateOrphan = base.Foreground(lipgloss.Color("0")).Background(colorYellow).Bold(true)

	s.TabActive = base.Bold(true).Foreground(colorWhite).Background(colorAccent)
	s.TabInactive = base.Foreground(colorGray)

	s.YAMLKey = base.Foreground(colorBlue)
	s.YAMLString = base.Foreground(colorGreen)
	s.YAMLNumber = base.Foreground(colorMagenta)
	s.YAMLLiteral = base.Foreground(colorYellow)
	s.YAMLComment = base.Foreground(colorGray).Italic(true)
	s.YAMLPunct = base.Foreground(colorGray)
	s.Masked = base.Foreground(colorYellow).Background(colorDark)

	s.Dialog = dialog.DefaultStyles()
	s.Picker = picker.DefaultStyles()
	s.Prompt = base.Foreground(colorAccent).Bold(true)
	return s
}

// GaugeStyle picks the colour of a share of the 1 MiB Secret limit.
func (s *Styles) GaugeStyle(share float64) *lipgloss.Style {
	switch {
	case share >= 0.9:
		return &s.GaugeHigh
	case share >= 0.6:
		return &s.GaugeMid
	}
	return &s.GaugeLow
}
