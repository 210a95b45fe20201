// Package table draws the UI's tables and fits text to cells and lines:
// columns that share a width by priority, cells with their styles, bars and
// sparklines, wrapping and cutting to a width.
package table
