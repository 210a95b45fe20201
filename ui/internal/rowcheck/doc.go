// Package rowcheck is how the release list and the history learn what a row's
// listing could not tell: its summary filled in (FillRow, FillRows), its chunks
// checked or its payload decoded (VerifyRow), a row another writer was storing
// checked again (RecheckLater), and the result line of a verify (VerifyRun).
// The answers, RowDetailsMsg, cross screens: a row verified in the history is
// verified in the list too.
//
// It sits with the screens, above ui/common.
package rowcheck
