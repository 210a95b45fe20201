// Package revision is the screen of one revision: its summary, values
// (masked until v), manifest, notes and hooks, in tabs, with search.
package revision
