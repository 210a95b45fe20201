// Package dialog is the confirmation dialog that every destructive
// operation goes through: it plans the operation, shows what will change and
// where, asks (typing the release's name where the harm is greatest), runs
// exactly what was shown and reports the outcome.
package dialog
