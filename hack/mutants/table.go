package main

// mutants is the table `make mutants` runs: each entry breaks one guarantee that
// the README or an issue states, with a one-line change, and names the tests
// that must catch it. To add one, append an entry: the file, the line as it
// stands (indentation aside; it must occur exactly once in the file), the line
// that replaces it, the guarantee, and the tests. TESTING.md explains the
// columns and keeps the last run's results.
var mutants = []mutant{
	// Reads and the defaults every front end runs with.
	{
		Name:      "read-retry-zero",
		File:      "storage/chunked.go",
		Find:      "const DefaultReadRetry = 2 * time.Second",
		Replace:   "const DefaultReadRetry = 0",
		Guarantee: "a read rides out another writer's write for 2 s by default (ls, the TUI and the operations set no ReadRetry)",
		Kill:      []target{{"./kube", "TestDefaultReadRetryRidesOutAWrite"}},
	},
	{
		Name:      "details-cache-unbounded",
		File:      "kube/client.go",
		Find:      "size = DefaultDetailsCacheBytes",
		Replace:   "size = 1 << 62",
		Guarantee: "the cache of decoded revisions kube.New builds is bounded by 256 MiB of decoded size",
		Kill:      []target{{"./kube", "TestDetailsCacheBoundByDefault"}},
	},
	{
		Name:      "details-cache-bound-size",
		File:      "kube/detailscache.go",
		Find:      "const DefaultDetailsCacheBytes = 256 << 20",
		Replace:   "const DefaultDetailsCacheBytes = 1 << 40",
		Guarantee: "the default bound of the details cache is 256 MiB, as the README says",
		Kill:      []target{{"./kube", "TestDetailsCacheBoundByDefault"}},
	},
	{
		Name:      "details-cache-not-lru",
		File:      "kube/detailscache.go",
		Find:      "c.order.MoveToFront(e)",
		Replace:   "_ = c.order",
		Guarantee: "the details cache evicts the least recently used revision first",
		Kill:      []target{{"./kube", "TestDetailsCacheEviction|TestDetailsCacheBoundByDefault"}},
	},

	// Masking: secrets are masked by default in anything shown.
	{
		Name:      "stringdata-unmasked",
		File:      "revdiff/manifest.go",
		Find:      `case isSecret && k == "stringData":`,
		Replace:   "case false:",
		Guarantee: "a Secret's stringData is masked in every view",
		Kill:      []target{{"./cli", "TestSecretsMaskedEverywhere"}, {"./ui", "TestSecretsNeverShown"}},
	},
	{
		Name:      "secret-data-unmasked",
		File:      "revdiff/manifest.go",
		Find:      `case isSecret && k == "data":`,
		Replace:   "case false:",
		Guarantee: "a Secret's data is masked in every view",
		Kill:      []target{{"./cli", "TestSecretsMaskedEverywhere"}, {"./ui", "TestSecretsNeverShown"}},
	},
	{
		Name:      "secret-copies-unscrubbed",
		File:      "revdiff/mask.go",
		Find:      "const minScrubLen = 8",
		Replace:   "const minScrubLen = 1 << 20",
		Guarantee: "a masked secret is masked wherever it was copied to (a connection string, the notes)",
		Kill:      []target{{"./cli", "TestSecretsMaskedEverywhere"}, {"./ui", "TestSecretsNeverShown"}},
	},
	{
		Name:      "secret-words-ignored",
		File:      "revdiff/mask.go",
		Find:      "if secretWords[last] {",
		Replace:   "if false {",
		Guarantee: "values under keys that name a secret (dbPassword, apiToken, tls.crt) are masked",
		Kill:      []target{{"./revdiff", "TestSensitiveKey|TestMaskValues"}},
	},

	// The live view.
	{
		Name:      "watch-410-not-resynced",
		File:      "kube/watch.go",
		Find:      "case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):",
		Replace:   "case false:",
		Guarantee: "a watch the server says fell behind (410) lists the store once more and says so",
		Kill:      []target{{"./kube", "TestWatchResyncsOnTheRealServer410"}},
	},
	{
		Name:      "watch-405-not-polled",
		File:      "kube/watch.go",
		Find:      "case refused(err):",
		Replace:   "case apierrors.IsForbidden(err):",
		Guarantee: "a store whose watch a proxy refuses (405) is polled, and the header says POLL",
		Kill:      []target{{"./kube", "TestWatchPollsOnTheRealServer405"}},
	},

	// Honest health.
	{
		Name:      "health-no-writing-window",
		File:      "kube/health.go",
		Find:      "return d < WritingWindow && d > -WritingWindow",
		Replace:   "return d < 0 && d > 0",
		Guarantee: "a record whose chunks are missing moments after its index was written shows as being written, not broken",
		Kill:      []target{{"./kube", "TestHealthDuringAnotherWrite"}},
	},
	{
		Name:      "health-no-wait",
		File:      "kube/health.go",
		Find:      "if wait := min(until.Sub(c.now()), WritingWindow); wait > 0 {",
		Replace:   "if wait := time.Duration(0); wait > 0 {",
		Guarantee: "a record seen mid-write is checked again once the writing window has passed, not before",
		Kill:      []target{{"./kube", "TestHealthDuringAnotherWrite"}},
	},

	// gc and read-only.
	{
		Name:      "gc-no-min-age",
		File:      "cli/gc.go",
		Find:      `cmd.Flags().DurationVar(&o.minAge, "min-age", storage.DefaultMinLeftoverAge, "leave unreferenced chunks younger than this alone")`,
		Replace:   `cmd.Flags().DurationVar(&o.minAge, "min-age", 1+0*storage.DefaultMinLeftoverAge, "leave unreferenced chunks younger than this alone")`,
		Guarantee: "gc spares chunks younger than two minutes by default: those of a write in flight",
		Kill:      []target{{"./cli", "TestGC"}},
	},
	{
		Name:      "read-only-lets-deletes-through",
		File:      "kube/transport.go",
		Find:      "case http.MethodGet, http.MethodHead, http.MethodOptions:",
		Replace:   "case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodDelete:",
		Guarantee: "--read-only makes every mutating request impossible: the connection refuses them",
		Kill:      []target{{"./kube", "TestReadOnlyTransport"}, {"./cli", "TestReadOnlyZeroMutatingCLI"}},
	},

	// Cheap listing: peeks, and their bounds on hostile bytes.
	{
		Name:      "peek-drops-description",
		File:      "storage/peek.go",
		Find:      "s.Description = info.Description",
		Replace:   `s.Description = ""`,
		Guarantee: "a listing row peeked from an index another tool wrote shows the release's description",
		Kill:      []target{{"./kube", "TestFillSummariesPeeksIndexes"}, {"./storage", "FuzzPeekSummary"}},
	},
	{
		Name:      "peek-unbounded",
		File:      "storage/peek.go",
		Find:      "const peekLimit = 4 << 20",
		Replace:   "const peekLimit = 1 << 40",
		Guarantee: "a peek inflates at most 4 MiB of JSON, whatever the record inflates to",
		Kill:      []target{{"./storage", "FuzzPeekSummary|FuzzPeekHelmSummary"}},
	},
	{
		Name:      "helm-record-unbounded",
		File:      "storage/helmrecord.go",
		Find:      "js, err := readAll(&limitedReader{r: zr, n: limit, in: in}, min(int64(len(gz))*4, hintCap), nil, limit+1)",
		Replace:   "js, err := readAll(&limitedReader{r: zr, n: 1 << 62, in: in}, min(int64(len(gz))*4, hintCap), nil, 1<<62)",
		Guarantee: "a Helm record is refused having cost about the bound on decoded size, whatever it inflates to",
		Kill:      []target{{"./storage", "FuzzDecodeHelmRecord"}},
	},
}
