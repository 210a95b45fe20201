// Package picker is the fuzzy list the namespace and context pickers share, in
// the manner of charm's bubbles (a Model with its KeyMap, Styles and Update):
// a prompt, the names it is given that match what was typed, and the one
// chosen. The screen that opens it reads the names (kube's listing, the
// kubeconfig) and hands them over.
package picker
