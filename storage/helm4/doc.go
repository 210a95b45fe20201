// Package helm4 is the chunked Secret release driver for Helm 4: an implementation
// of helm.sh/helm/v4/pkg/storage/driver.Driver that stores each revision of a
// release gzipped and cut over an index Secret and chunk Secrets, in the format of
// helm-operator-plugins' pkg/storage (OLMv1's operator-controller) and of
// chunkview's Helm 3 driver, package storage. A release larger than the API
// server's 1 MiB object limit, which Helm's own Secrets driver cannot store, fits
// in as many Secrets as it takes.
//
// # Use
//
// Build a driver over the Secrets of the namespace that keeps the records, and give
// it to Helm 4's actions in place of the driver action.Configuration.Init sets up:
//
//	cfg := action.NewConfiguration()
//	if err := cfg.Init(getter, namespace, "secret"); err != nil { ... }
//	drv := helm4.NewDriver(clientset.CoreV1().Secrets(namespace), "operator-controller",
//		helm4.ChunkedSecretsConfig{ChunkSize: 1_040_384, MaxReadChunks: 11, MaxWriteChunks: 11})
//	cfg.Releases = helmstorage.Init(drv) // helm.sh/helm/v4/pkg/storage
//
// The configuration is ChunkedSecretsConfig (storage/chunked's Config), whose first four fields are
// those of helm-operator-plugins' ChunkedSecretsConfig with the same meaning; the
// values above are OLMv1's. The owner is the value of the records' owner label:
// keep the one the records were written with. Helm 4 queries with owner=helm,
// which the driver takes for its own owner.
//
// A project moving from helm-operator-plugins' driver (Helm 3) to Helm 4 changes
// the constructor and nothing on the cluster: the records its operator wrote read
// back through this driver, field for field as Helm 4's types decode them, and the
// records this driver writes read back through helm-operator-plugins' driver and
// chunkview's Helm 3 driver (less the fields Helm 3 has no place for:
// apply_method, info.rollback_revision and the chart's mod times). Both drivers
// can write the same release's records at once, as an operator and a person with
// chunkview do.
//
// # What it adds to Helm 4's contract
//
// The driver is chunked.Core, the same code as chunkview's Helm 3 driver, behind
// Helm 4's types, so it has the same guarantees (see package storage for each):
// no torn record (a create of several chunks writes a pending index first), no
// lost update (an Update or Delete fails with an error wrapping
// ErrConflict when another writer changed the record since this driver
// read it), a failed write loses nothing, reads ride out another writer's write
// for up to ReadRetry, every chunk is checked against the hash in its name and
// the decoded size is bounded, and Delete removes the chunk Secrets itself rather
// than leaving them to the garbage collector.
//
// Beyond driver.Driver, NewDriver's ChunkedSecrets has WithContext, to cancel
// calls; Expect, to hold a release's records to the resourceVersions a plan was
// made from, so that an operation a person confirmed runs only on the release as
// it was shown; Fresh; ForceDelete, for a record that cannot be read; and, through
// its Core, ReadIndex, ReadIndexes, InspectSecrets and typed reads.
//
// It returns *release/v1.Release values, takes *release/v1.Release (or
// release/v1.Release) values, and returns Helm 4's driver.ErrReleaseNotFound and
// driver.ErrReleaseExists unwrapped, as Helm 4's drivers do: a Query that matches
// nothing returns driver.ErrReleaseNotFound. It keeps every field of a Helm 4
// release through a write and a read, byte for byte as Helm 4 encodes it. Like
// Helm 4's drivers it has Logger and SetLogger, so Helm's storage logs where it
// does; its own lines carry keys and counts, never release data.
package helm4
