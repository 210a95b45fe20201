package main

// The on-call engineer's third round (issue 29): the CLI's habits, fit's limits,
// and the controllers and stores a listing may not read. They sit in their own
// file so that table.go stays under 500 lines.
func init() {
	mutants = append(mutants, oncallMutants...)
}

var oncallMutants = []mutant{
	{
		Name:      "diff-previous-is-latest",
		File:      "kube/revisions.go",
		Find:      "from = rows[len(rows)-2].Revision",
		Replace:   "from = rows[len(rows)-1].Revision",
		Guarantee: "diff NAME compares the revision before the latest with the latest, as helm diff revision does",
		Kill:      []target{{"./cli", "TestDiffAgainstLatest"}},
	},
	{
		Name:      "fit-release-flag-limits",
		File:      "cli/fit.go",
		Find:      "o.fitCfg = fitSettings(c.Config().Driver)",
		Replace:   "_ = c.Config().Driver",
		Guarantee: "fit --release measures against the limits of the release's own store (the demo's 704 KiB, not \"limit none\")",
		Kill:      []target{{"./cli", "TestFitReleaseUsesItsStoreLimits"}},
	},
}
