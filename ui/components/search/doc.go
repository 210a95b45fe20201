// Package search is the / search of a text view: the query line, the
// matches marked in the text, and n/N to step between them.
package search
