package main

// verify's checks (storage/verify.go), which no entry held: each kind of
// damage it names, the owner check, the age that tells a write in flight from
// a leftover, and the scope of a release namespace.
func init() {
	mutants = append(mutants, verifyMutants...)
}

var verifyMutants = []mutant{
	{
		Name:      "verify-hash-unchecked",
		File:      "storage/verify.go",
		Find:      "case !c.hashOK:",
		Replace:   "case false:",
		Guarantee: "verify reports a chunk whose bytes do not hash to its name",
		Kill:      []target{{"./kube", "TestLayoutVerifyGC"}},
	},
	{
		Name:      "verify-missing-chunk-misnamed",
		File:      "storage/verify.go",
		Find:      `add(ProblemMissingChunk, n, "chunk %d of %d does not exist", i+2, len(names)+1)`,
		Replace:   `add(ProblemOrphanChunk, n, "chunk %d of %d does not exist", i+2, len(names)+1)`,
		Guarantee: "verify names a missing chunk as missing, with the record it breaks",
		Kill:      []target{{"./kube", "TestLayoutVerifyGC"}},
	},
	{
		Name:      "verify-owner-unchecked",
		File:      "storage/verify.go",
		Find:      "if ok && !hasOwnerUID(c.owners, s.UID) {",
		Replace:   "if false {",
		Guarantee: "verify reports a chunk without the ownerReference to its index (garbage collection would not remove it with the record)",
		Kill:      []target{{"./kube", "TestLayoutVerifyGC"}},
	},
	{
		Name:      "verify-young-chunk-leftover",
		File:      "storage/verify.go",
		Find:      "if v.opts.Now.Sub(c.created) < v.opts.MinAge {",
		Replace:   "if false {",
		Guarantee: "an unreferenced chunk younger than the minimum age is a write in flight, reported but never offered to gc",
		Kill:      []target{{"./kube", "TestLayoutVerifyGC"}},
	},
	{
		Name:      "verify-pending-young-leftover",
		File:      "storage/verify.go",
		Find:      "if age < min(v.opts.MinAge, PendingLease) {",
		Replace:   "if false {",
		Guarantee: "a pending index younger than its lease is a create in flight, reported but never offered to gc",
		Kill:      []target{{"./storage", "TestInterruptedCreate"}},
	},
	{
		Name:      "verify-release-scope-ignored",
		File:      "storage/verify.go",
		Find:      "return ok && v.want[name]",
		Replace:   "return ok || v.want[name]",
		Guarantee: "verify and gc of a release namespace whose records share a storage namespace touch only that namespace's releases",
		Kill:      []target{{"./kube", "TestVerifyAndGCTakeTheReleaseNamespace"}},
	},
}

// The screens' shared record of removed-API checks (ui/common.APIChecks).
func init() {
	mutants = append(mutants, []mutant{
		{
			Name:      "apichecks-broken-rows-asked",
			File:      "ui/common/apis.go",
			Find:      "if id := RowID(r); !r.Broken && !a.asked[id] {",
			Replace:   "if id := RowID(r); !a.asked[id] {",
			Guarantee: "a revision that cannot be read is not decoded again to check its APIs (the list and the history say why it cannot be read instead)",
			Kill:      []target{{"./ui/common", "TestAPIChecks"}},
		},
		{
			Name:      "apichecks-new-served-keeps-reports",
			File:      "ui/common/apis.go",
			Find:      "a.Served, a.reports, a.asked = msg.Served, nil, nil",
			Replace:   "a.Served = msg.Served",
			Guarantee: "discovery read again (r) checks every revision again against what the cluster serves now",
			Kill:      []target{{"./ui/common", "TestAPIChecks"}},
		},
		{
			Name:      "apichecks-other-served-kept",
			File:      "ui/common/apis.go",
			Find:      "if msg.Served == a.Served && a.Served != nil {",
			Replace:   "if true {",
			Guarantee: "a late answer checked against what the cluster used to serve is dropped",
			Kill:      []target{{"./ui/common", "TestAPIChecks"}},
		},
	}...)
}
