// Package dialog is the confirmation dialog that every operation changing the
// cluster goes through. It confirms what it is given, in the manner of charm's
// bubbles (a Model with its KeyMap, Styles and Update): the screen that offers
// the operation words it and plans it, and the dialog shows what will change
// and where, asks (typing the release's name where the harm is greatest),
// hands the choice back to run (OnConfirm) and shows the outcome it is told.
// Box and Overlay draw it, and the pickers, over a screen.
package dialog
