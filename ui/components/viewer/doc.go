// Package viewer is the scrolled text view the screens share, in the manner of
// charm's bubbles: a Model over a viewport with its KeyMap (keys.go), Styles
// (styles.go) and Update. It marks the lines that go on past its right edge
// and, when given a search (WithSearch), takes / and its keys and marks the
// matches.
package viewer
