// Package viewer holds what the scrolled text views share: drawing a
// viewport with long lines marked as cut, the scroll keys, and copying to the
// clipboard.
package viewer
