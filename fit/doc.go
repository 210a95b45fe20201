// Package fit tells, before an install or an upgrade, whether a chart with its
// values fits each store Helm release records are kept in, and what takes the
// room.
//
// It renders the chart as Helm's own install (or upgrade) does, client-side, with
// the action package of the Helm that will run it (Helm 3's or Helm 4's, whose
// record holds the chart's mod times and the apply method besides), and turns
// the result into the record that action stores: deployed, its hooks run. It then encodes that record exactly as each
// store writes it, with storage's encoders: Helm's Secrets and ConfigMaps drivers
// (base64 of the gzip stream in data.release, at most 1 MiB), and the chunked
// format (the gzip stream cut into slices of the chunk size, an index Secret and
// chunk Secrets, each under 1 MiB, at most MaxWriteChunks of them).
//
// It also holds the arithmetic of growth (growth.go): a line fitted through a
// release's recent stored sizes (ProjectGrowth, ForecastRows) and extrapolated to
// its store's limit, which the history screen, `history` and `fit` show alike.
//
// Nothing here talks to a cluster: the CLI reads the release an upgrade starts
// from (kube.Inspector.UpgradeBase) and hands it over.
package fit
