// Package storage is chunkview's chunked Helm release driver and the on-cluster
// format it shares with operator-framework/helm-operator-plugins' pkg/storage (used by
// OLMv1's operator-controller).
//
// # Use
//
// NewChunkedSecrets is a drop-in for helm-operator-plugins' constructor of the same
// name, with the same configuration fields: give its driver to Helm 3's actions in
// place of the one action.Configuration.Init sets up.
//
//	cfg := new(action.Configuration)
//	if err := cfg.Init(getter, namespace, "secret", log.Printf); err != nil { ... }
//	cfg.Releases = helmstorage.Init(storage.NewChunkedSecrets( // helm.sh/helm/v3/pkg/storage
//		clientset.CoreV1().Secrets(namespace), "operator-controller",
//		storage.ChunkedSecretsConfig{ChunkSize: 1_040_384, MaxReadChunks: 11, MaxWriteChunks: 11}))
//
// For Helm 4 (helm.sh/helm/v4), storage/helm4 is the same driver behind Helm 4's
// driver.Driver. Both read and write the same records, so a project can move from
// one Helm to the other, or run both at once, without touching its cluster. The
// values above are OLMv1's; the owner is the value of the records' owner label.
//
// NewDriver returns the concrete type, for what Helm's interface has no room for:
// WithContext (cancel a call), Expect (hold a release to a plan), Fresh,
// ForceDelete (remove a record that cannot be read), and the inspection methods.
// Verify, FindLeftovers and RemoveLeftovers check and clean a namespace's records.
//
// # One driver, two Helms, three modules
//
// The driver's code is storage/chunked's Core, generic over the release type: the
// format, the writes and reads with their guarantees, the tracking of what was
// read, and the release cache. A Codec gives it what is particular to one Helm
// major: its release's JSON and the fields the index labels and summary carry.
// ChunkedSecrets (Helm 3) and storage/helm4.ChunkedSecrets (Helm 4) are each a
// Codec and their Helm's driver.Driver methods over a Core, nothing more.
//
// Each is a Go module of its own, that requires only what it imports: this one
// (github.com/chunkview/chunkview/storage) requires Helm 3 and
// storage/chunked; storage/helm4 requires Helm 4 and storage/chunked, and not
// Helm 3; storage/chunked requires neither. This package also carries the
// core's exported names (chunked_names.go), so that a Helm 3 adopter imports it
// alone.
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
// They hold with other writers on the same keys — the original driver among them —
// unless a guarantee says otherwise.
//
//   - No torn record from chunkview's writes. An index names only chunks that
//     exist. A create of more than one slice first writes a pending index: the
//     index Secret without data, labelled type=pending (TypePending), which no
//     listing selects and every chunkview read takes for not found, and which
//     makes a create of the key by any writer fail as already existing. Its chunks
//     are created owned by it, then one update at its version gives it its data
//     and the type=index label. An update writes its new chunks, owned by the
//     index, before the index. A write claims every chunk it did not create itself
//     (an ownerReference, or the AnnotationClaim annotation: a change of the
//     chunk's resourceVersion) before (create) or after (update) its index names
//     it, and writes again one that disappeared before its claim while its index
//     is still the one it wrote. Every delete of a chunk — an update's old chunks,
//     a delete's, the cleanup of a failed write, gc — carries the UID and
//     resourceVersion read before an index was seen not to name it, so a chunk
//     claimed since is kept. gc (RemoveLeftovers) also spares chunks and pending
//     indexes younger than the minimum age, and a write that took more than half
//     of it gives up before naming its chunks. A pending index older than that is
//     an interrupted create: Verify reports it and gc removes it; chunkview's next
//     create of the key takes over one older than PendingLease (15 s). The original driver, addressing such
//     a key by name (Helm does so after listing it, or when a person names it), gets an error,
//     "missing chunks data", never a release; its List and Query do not see it.
//   - No lost update. A driver value remembers the index resourceVersion at which
//     it read each key (Get, List, Query) or last wrote it, and for each release
//     value it returned, the version of the read that returned it. An Update of a
//     value carries the version of its own read as a precondition (Helm writes back
//     the value it read, changed, sometimes after reading the key again); an Update
//     of another value, and a Delete, carry the latest. Either fails with
//     ErrConflict when any writer changed the record since. A driver that never
//     read the key writes as Helm expects. Expect holds a release to a plan: what a
//     person confirmed is what runs, or nothing does.
//   - A failure at any single API call leaves either the old or the new release
//     readable, and at worst leaves unreferenced chunks, or a pending index, that
//     FindLeftovers reports and RemoveLeftovers deletes.
//   - Reads ride out a write in progress: a chunk missing or not matching its index
//     makes a read wait, read the index again and retry for up to ReadRetry (2 s by
//     default) before it reports the record broken. The original driver writes an
//     index before its chunks, and deletes old chunks before it rewrites the index;
//     a read in that window waits for it. A read that starts again keeps the slices
//     it has verified (a chunk's name is the hash of its slice, so the slice is the
//     same under any index that names it) and fetches only the others; while it
//     waits, it looks every 10 ms for the few chunks it missed. So it completes
//     even while the original driver rewrites the record without pause, which
//     leaves its last chunk in place for a few milliseconds at a time. What it
//     keeps is one record's slices at most, and at most MaxDecodedBytes/4.
//   - Identical slices of one release share one chunk Secret.
//   - Every slice read is checked against the hash in its name, chunk names must
//     belong to their own key, the decompressed size is bounded and chunks are fetched
//     a few at a time, so memory stays bounded whatever is stored: a payload over
//     MaxDecodedBytes is refused having cost about that bound, whatever its
//     compression ratio, and a size hint in an annotation is believed only up to a
//     small cap until the data shows it true.
//   - Lists are paged and start over when their continue token expires (410 Gone).
//     A source that has no pages is read whole, in one list: a Secret client whose
//     reads go through controller-runtime's cache, which cuts a list at its limit
//     and refuses the continue token it sets, or any source that refuses a token
//     it handed out with an error no API server answers with.
//   - List, Get and Query return the same custom labels: those from the payload.
//
// # Cached reads
//
// A controller that reads its releases on every reconcile can give its drivers a
// ReleaseCache (ChunkedSecretsConfig.Cache): an informer per namespace and owner on
// the index Secrets, the chunk slices by name, and the decoded releases by index
// resourceVersion, each under its own bound. At steady state Helm's History,
// Get, Last, Deployed and Query then make no request and decode nothing. With the
// cache on, the guarantees above hold as follows:
//
//   - No torn record, and a failure at any single API call: unchanged; writes do
//     not go through the cache.
//   - No lost update: unchanged. A write reads the index from the API server and
//     carries the version its data was read at as a precondition, so a read from
//     an informer that had not yet delivered another writer's change makes the
//     write fail with ErrConflict, as a read that raced the change does without
//     the cache.
//   - What changes is what a read sees: the records as the informer has
//     delivered them, which may trail another writer's last write by the watch's
//     latency. A write made through any driver of the cache is seen by the next
//     read: the read waits for the informer to deliver it, up to WriteWait, and
//     then reads the API server. A driver held to a plan (Expect) reads the API
//     server, so that its reads are held to exactly the records the plan names.
//   - Reads ride out a write in progress: a record the cache cannot decode (a
//     chunk gone, or not matching) is read from the API server alone, with the
//     ride-out above.
//   - Every slice is checked against the hash in its name when it is fetched; a
//     slice held is used only under that name, so it is the slice any index
//     naming it stands for.
//   - Memory: MaxChunkBytes bounds the slices held and MaxReleaseBytes the
//     decoded releases; the informers hold index metadata only unless
//     KeepIndexData. Each read still decodes within MaxDecodedBytes.
//   - Lists are the informer's; they are paged as client-go's reflector pages.
//   - Releases are handed out as deep copies: what Helm changes in one never
//     reaches the cache, and two reads never share a value.
//
// What chunkview cannot prevent: the original driver updates an index with no
// precondition and deletes a key's chunks by label, so its own writes overwrite
// whatever another writer stored meanwhile, chunkview's included.
//
// chunkview also records a summary of the release (chart, versions, sizes, a SHA-256
// of the whole gzip stream) as annotations on the index Secrets it writes. The format
// ignores extra annotations; listing tools read them instead of decoding payloads.
package storage

//go:generate go run ../hack/aliasgen -o chunked_names.go github.com/chunkview/chunkview/storage/chunked ./chunked storage Config DecodePayload SecretRef ListSecrets ListPage VerifyPage Inflate UnknownFields Compress EncodeJSON TestHooks HooksOf HookGzipBound HookDecodePayloadInfo HookFastUnmarshal HookStringHeavy HookWrapCacheWatch HookDeepCopy HookHeapSize
