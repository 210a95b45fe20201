package main

// Issue 29's item 16, second part: the demo's seeded cluster kept as a
// snapshot in the user's cache, and the demo's clock that starts at the
// snapshot's moment.
func init() {
	mutants = append(mutants, demoCPU2Mutants...)
}

var demoCPU2Mutants = []mutant{
	{
		Name:      "snapshot-key-ignores-build",
		File:      "demo/snapshot.go",
		Find:      `sum := sha256.Sum256(fmt.Appendf(nil, "%s\n%s\n%s\nintact=%v\nonly=%s", snapshotFormat, s.Key, variant, opts.Intact, only))`,
		Replace:   `sum := sha256.Sum256(fmt.Appendf(nil, "%s\n%s\n%s\nintact=%v\nonly=%s", snapshotFormat, "", variant, opts.Intact, only))`,
		Guarantee: "a snapshot made by another build of chunkview (another demo) is never read",
		Kill:      []target{{"./demo", "TestSnapshotNotReused"}},
	},
	{
		Name:      "snapshot-key-ignores-seed",
		File:      "demo/snapshot.go",
		Find:      `sum := sha256.Sum256(fmt.Appendf(nil, "%s\n%s\n%s\nintact=%v\nonly=%s", snapshotFormat, s.Key, variant, opts.Intact, only))`,
		Replace:   `sum := sha256.Sum256(fmt.Appendf(nil, "%s\n%s\n%s\nintact=%v\nonly=%s", snapshotFormat, s.Key, variant, false, only[:0]+"all"))`,
		Guarantee: "a snapshot is read only for the samples and damage it was seeded with",
		Kill:      []target{{"./demo", "TestSnapshotNotReused"}},
	},
	{
		Name:      "build-key-constant",
		File:      "demo/snapshot.go",
		Find:      `return "buildid:" + id`,
		Replace:   `return "buildid:"`,
		Guarantee: "the snapshots' key is the binary's Go build ID, which any change to the code changes",
		Kill:      []target{{"./demo", "TestBuildKey"}},
	},
	{
		Name:      "snapshot-age-ignored",
		File:      "demo/snapshot.go",
		Find:      "if age := now.Sub(f.Made); age < 0 || age >= SnapshotMaxAge {",
		Replace:   "if age := now.Sub(f.Made); age < 0 {",
		Guarantee: "a snapshot older than 24 h is seeded again, so that the demo's dates stay recent",
		Kill:      []target{{"./demo", "TestSnapshotNotReused"}},
	},
	{
		Name:      "snapshot-sum-unchecked",
		File:      "demo/snapshot.go",
		Find:      "if f.Format != snapshotFormat || f.Key != key || crc32.Checksum(cluster, castagnoli) != f.Sum {",
		Replace:   "if f.Format != snapshotFormat || f.Key != key {",
		Guarantee: "a snapshot file changed after it was written is not read as a cluster: it is seeded again",
		Kill:      []target{{"./demo", "TestCorruptSnapshotRebuilt"}},
	},
	{
		Name:      "snapshot-torn-write",
		File:      "demo/snapshot.go",
		Find:      `tmp, err := os.CreateTemp(s.Dir, ".demo-*.tmp")`,
		Replace:   `if err := os.WriteFile(s.path(variant, key), buf, 0o600); err != nil || err == nil { return err }; tmp, err := os.CreateTemp(s.Dir, ".demo-*.tmp")`,
		Guarantee: "a demo starting while another writes the snapshot reads the old one or the new one whole, never part of one (temporary file, then rename)",
		Kill:      []target{{"./demo", "TestSnapshotWriteIsAtomic"}},
	},
	{
		Name:      "clock-not-offset",
		File:      "demo/clock.go",
		Find:      "func (c *Clock) Now() time.Time { return c.made.Add(c.base().Sub(c.start)) }",
		Replace:   "func (c *Clock) Now() time.Time { return c.base() }",
		Guarantee: "a demo started from a snapshot runs on a clock that starts at the snapshot's moment: it shows the ages a fresh demo shows",
		Kill:      []target{{"./demo", "TestClockMovesFromTheSnapshot|TestSnapshotStartsTheSameCluster"}, {"./cli", "TestDemoFromSnapshot"}},
	},
	{
		Name:      "restored-cluster-clock-unset",
		File:      "demo/snapshot.go",
		Find:      "c.SetClock(clock.Now) // what the demo creates from now on is dated by it",
		Replace:   "_ = clock",
		Guarantee: "what a demo started from a snapshot creates (a rollback's records) is dated by the demo's clock, not the time",
		Kill:      []target{{"./demo", "TestSnapshotStartsTheSameCluster"}},
	},
	{
		Name:      "demo-client-clock-unset",
		File:      "cli/demo.go",
		Find:      "cfg.Demo, cfg.Now = true, st.Clock.Now",
		Replace:   "cfg.Demo = true",
		Guarantee: "the demo's client measures ages (stuck, leftovers, the writing window) by the demo's clock",
		Kill:      []target{{"./cli", "TestDemoFromSnapshot"}},
	},
	{
		Name:      "cli-now-ignores-client",
		File:      "cli/root.go",
		Find:      "return r.client.Now()",
		Replace:   "return time.Now()",
		Guarantee: "the CLI's ages (ls's UPDATED) are measured by the connected client's clock: the demo's under --demo",
		Kill:      []target{{"./cli", "TestDemoFromSnapshot"}},
	},
	{
		Name:      "view-clock-not-clients",
		File:      "ui/common/common.go",
		Find:      "now = client.Now",
		Replace:   "now = time.Now",
		Guarantee: "the view measures ages by its client's clock (the demo's) when given none",
		Kill:      []target{{"./ui/common", "TestClockIsTheClients"}},
	},
	{
		Name:      "driver-clock-ignored",
		File:      "storage/chunked/core.go",
		Find:      "now := cfg.Now",
		Replace:   "var now func() time.Time",
		Guarantee: "the chunked driver dates its records' labels and its pending lease by Config.Now when set",
		Kill:      []target{{"./kube", "TestClientClockDatesRecords"}, {"./demo", "TestSnapshotStartsTheSameCluster"}},
	},
	{
		Name:      "client-driver-clock-unset",
		File:      "kube/client.go",
		Find:      "cfg.Driver.Now = cfg.Now",
		Replace:   "_ = cfg.Now",
		Guarantee: "a client's chunked records are dated by the clock it measures their ages with",
		Kill:      []target{{"./kube", "TestClientClockDatesRecords"}},
	},
	{
		Name:      "seed-driver-clock-unset",
		File:      "demo/seed.go",
		Find:      "cfg.Now = c.Clock()",
		Replace:   "_ = c",
		Guarantee: "the seeded records' createdAt labels are dated by the demo's clock, as their Secrets are",
		Kill:      []target{{"./demo", "TestSnapshotStartsTheSameCluster"}},
	},
	{
		Name:      "restore-keeps-trailing-bytes",
		File:      "internal/fakeapi/snapshot.go",
		Find:      "if len(rest) != 0 {",
		Replace:   "if false {",
		Guarantee: "a cluster snapshot that does not end where its objects do is refused",
		Kill:      []target{{"./internal/fakeapi", "TestRestoreRefusesDamage"}},
	},
}
