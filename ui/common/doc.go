// Package common is what every screen shares: the Common value each embeds
// (the client, styles, keys, clock and size, and the components built with
// them), the Screen interface the root stacks, the messages that cross screens
// (push, pop, status, an operation done, a row filled in) with their commands,
// and the helpers that name stores and errors the same way on every screen.
//
// The ui packages import downhill only, in this order:
//
//	ui/components/*  ←  ui/theme  ←  ui/common  ←  ui/screens/*  ←  ui
//
// common imports theme and the components; no component imports common.
package common
