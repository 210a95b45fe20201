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
// terminal), the marks that stand for colour, and the hint that names a
// control (a flag, a key).
//
// render imports kube's and storage's types and internal/human; never ui, cli,
// Bubble Tea or Lip Gloss.
package render
