// Package theme is how the UI looks and which keys it takes: the Styles every
// screen draws with (built once by DefaultStyles, holding each component's own
// Styles), the KeyMap of every screen and component (DefaultKeyMap, with
// DisableActions for read-only mode), YAML highlighting and the text fields'
// look.
//
// The ui packages import downhill only, in this order:
//
//	ui/components/*  ←  ui/theme  ←  ui/common  ←  ui/screens/*  ←  ui
//
// theme imports the components, for their Styles and KeyMaps, and nothing of
// the cluster (kube, kube/ops, storage).
package theme
