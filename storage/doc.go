// Package storage is chunkview's chunked Helm release driver and the on-cluster
// format it shares with operator-framework/helm-operator-plugins' pkg/storage (used by
// OLMv1's operator-controller).
//
// # Format
//
// Helm hands the driver a key, sh.helm.release.v1.<name>.v<revision>. The release is
// encoded as JSON with one extra top-level field, "labels" (the custom labels, which
// Helm itself does not serialize), gzip-compressed at best compression, and the gzip
// stream is cut into slices of at most ChunkSize bytes. Nothing is base64-encoded
// inside a Secret.
//
//   - The index Secret is named after the key, has type operatorframework.io/index.v1
//     and holds the first slice in data["chunk"] and the names of the other slices'
//     Secrets, in order, as a JSON array in data["extraChunks"]. Its labels are name,
//     owner, status, version, key, type=index, createdAt and (after an update)
//     modifiedAt.
//   - Each further slice lives in an immutable chunk Secret of type
//     operatorframework.io/chunk.v1 named <key>-<hash>, where hash is the FNV-1a 64
//     sum of the slice, base32-encoded with the alphabet
//     abcdefghijklmnopqrstuvwxyz123456 and no padding. Its labels are owner, key,
//     type=chunk and createdAt; it carries a controller ownerReference to its index.
//
// Releases written by either implementation read back through the other.
//
// # Guarantees beyond the original driver
//
//   - Writes put chunks before the index that names them, so a key never resolves to
//     an index whose chunks are not all there; an index is replaced with a
//     resourceVersion precondition and the chunks it stops naming are removed only
//     afterwards. A failure at any single API call leaves either the old or the new
//     release readable, and at worst leaves unreferenced chunks that FindLeftovers
//     reports and RemoveLeftovers deletes.
//   - Identical slices of one release share one chunk Secret.
//   - Every slice read is checked against the hash in its name, chunk names must
//     belong to their own key, the decompressed size is bounded and chunks are fetched
//     a few at a time, so memory stays bounded whatever is stored.
//   - List, Get and Query return the same custom labels: those from the payload.
//
// chunkview also records a summary of the release (chart, versions, sizes, a SHA-256
// of the whole gzip stream) as annotations on the index Secrets it writes. The format
// ignores extra annotations; listing tools read them instead of decoding payloads.
package storage
