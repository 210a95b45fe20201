// Package table draws the UI's tables and fits text to cells and lines:
// columns that share a width by priority, cells with their styles, bars and
// sparklines, wrapping and cutting to a width. Its Model is a table's cursor,
// in the manner of charm's bubbles: a KeyMap (keys.go), Styles (styles.go) and
// Update; the screen draws the rows.
package table
