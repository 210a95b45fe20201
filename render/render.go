package render

import (
	"strings"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
)

// Meaning is what a value says about the thing it shows, for a printer to mark:
// the TUI colours it, the CLI prints the words alone, which must read without
// the colour.
type Meaning uint8

// The meanings a value can have.
const (
	// Plain marks nothing: a name, a size, a date.
	Plain Meaning = iota
	// OK is a state that needs nothing: deployed, Current, Succeeded.
	OK
	// Warning needs attention soon: pending, in progress, near a limit.
	Warning
	// Failed needs attention now: failed, broken, missing, over a limit.
	Failed
	// Muted is past or beside the point: superseded, never run, a note.
	Muted
)

// String names the meaning, for tests and messages.
func (m Meaning) String() string {
	switch m {
	case OK:
		return "ok"
	case Warning:
		return "warning"
	case Failed:
		return "failed"
	case Muted:
		return "muted"
	}
	return "plain"
}

// Cell is one value shown: its text and what it means.
type Cell struct {
	Text    string
	Meaning Meaning
	// Mark is a sign of the meaning that reads without colour ("✓", "✗",
	// "◔"): a screen shows it before Text; the CLI's columns of words, which
	// scripts read too, leave it out. "" for none.
	Mark string
}

// Marked is the cell's text after its mark, as a screen shows it.
func (c Cell) Marked() string {
	if c.Mark == "" {
		return c.Text
	}
	return c.Mark + " " + c.Text
}

// Text is a cell of plain text.
func Text(s string) Cell { return Cell{Text: s} }

// Column is one column of a table.
type Column struct {
	// Name is the column's title, as the CLI prints it.
	Name string
	// Short is the title where room is scarce (the TUI's fixed columns); ""
	// means Name.
	Short string
	// Right aligns the column's cells right, as numbers are.
	Right bool
}

// Title is the column's title where room is scarce: Short, else Name.
func (c Column) Title() string {
	if c.Short != "" {
		return c.Short
	}
	return c.Name
}

// Table is rows of cells under columns; every row has one cell a column.
type Table struct {
	Columns []Column
	Rows    [][]Cell
}

// Index is the position of the column called name, -1 when there is none.
func (t Table) Index(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Cell is row's cell in the column called name; an empty cell when there is no
// such column.
func (t Table) Cell(row int, name string) Cell {
	if i := t.Index(name); i >= 0 {
		return t.Rows[row][i]
	}
	return Cell{}
}

// Select is the table of the columns called names alone, in names' order; a
// name t has no column of is left out.
func (t Table) Select(names ...string) Table {
	var idx []int
	out := Table{}
	for _, n := range names {
		if i := t.Index(n); i >= 0 {
			idx = append(idx, i)
			out.Columns = append(out.Columns, t.Columns[i])
		}
	}
	for _, r := range t.Rows {
		row := make([]Cell, len(idx))
		for j, i := range idx {
			row[j] = r[i]
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// Head is the columns' titles, as the CLI prints them.
func (t Table) Head() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// Texts is the rows' texts, for a printer that marks nothing.
func (t Table) Texts() [][]string {
	out := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = c.Text
		}
	}
	return out
}

// Line is a sentence shown on a line of its own, wrapped by the printer, at a
// depth under what it belongs to (a Pod under its Job, a container under its
// Pod): each printer indents a depth in its own way.
type Line struct {
	Text    string
	Meaning Meaning
	Depth   int
}

// KStatus is what a kstatus word (live.StatusCurrent, ...) means.
func KStatus(s string) Meaning {
	switch s {
	case live.StatusCurrent:
		return OK
	case live.StatusInProgress, live.StatusTerminating:
		return Warning
	case live.StatusFailed, live.StatusNotFound:
		return Failed
	}
	return Muted
}

// HookPhase is what the phase of a hook's last run means; "" is never run.
func HookPhase(phase string) Meaning {
	switch phase {
	case "Succeeded":
		return OK
	case "Failed":
		return Failed
	case "Running":
		return Warning
	}
	return Muted
}

// ReleaseStatus is what Helm's status of a revision means: deployed is well,
// failed is not, one pending or uninstalling is in flight and may be stuck,
// superseded and uninstalled are history; another is not judged.
func ReleaseStatus(status string) Meaning {
	switch {
	case status == "deployed":
		return OK
	case status == "failed":
		return Failed
	case kube.InFlight(status):
		return Warning
	case status == "superseded" || status == "uninstalled":
		return Muted
	}
	return Plain
}

// OneLine joins the lines of s, its runs of spaces made one: a message from the
// cluster may span lines that a cell cannot.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
