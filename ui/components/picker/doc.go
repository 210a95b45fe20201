// Package picker is the fuzzy list the namespace and context pickers share:
// a prompt, the names that match what was typed, and the one chosen.
package picker
