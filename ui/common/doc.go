// Package common is what every screen and component of the UI shares: the
// Common value each embeds (the client, styles, keys, clock and size), the
// Screen interface the root stacks, the messages that cross screens (push, pop,
// status, an operation done, a row filled in) with their commands, and the
// helpers that name stores and errors the same way on every screen.
package common
