// Package render turns what chunkview reads into what it shows, once for both
// front ends, in the manner of k9s's render and kubectl's printers: for each
// thing shown (a release's row, a revision of its history, a release's status,
// a record's layout, a fit), one function yields the columns, the cells and
// what each means (ok, warning, failed, muted). The CLI prints them plain and
// the TUI styles them; neither words a value on its own, so the two cannot
// drift apart.
//
// A new thing shown is one function here, with its table test, and the two
// printers' use of it. What differs by medium stays with the printer: the
// layout (the CLI's columns sized to their values, the TUI's fitted to the
// terminal, its gauges drawn in a column's width), the colours, and the hint
// that names a control (a flag, a key). A cell's Mark is here, not with the
// printer: marks tell apart states of one meaning (◔ pending, ◌ writing, ⚠
// blocked are all warnings), so they are wording. A table shows every column
// it has; each front end selects those it prints (Table.Select), and the
// screen, which reads summaries after it lists rows and has no HEALTH
// column, asks for its few words of its own (Options.Screen).
//
// render imports kube's and storage's types and internal/human; never ui, cli,
// Bubble Tea or Lip Gloss.
package render
