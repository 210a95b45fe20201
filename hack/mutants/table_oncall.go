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
	{
		Name:      "inspect-unreadable-exits-0",
		File:      "cli/inspect.go",
		Find:      "if err == nil && out.DecodeError != \"\" {",
		Replace:   "if false {",
		Guarantee: "inspect of a revision that cannot be read exits 4, as verify does for its problems",
		Kill:      []target{{"./cli", "TestDemoVerifyAdvisesWhatPastes|TestReadCommands"}},
	},
	{
		Name:      "verify-empty-namespaces-listed",
		File:      "cli/verify.go",
		Find:      "if rep.Indexes == 0 && rep.Chunks == 0 && len(rep.Problems) == 0 && len(rep.Leftovers) == 0 && len(rep.Recent) == 0 {",
		Replace:   "if false {",
		Guarantee: "verify prints no line for a namespace where a store holds nothing",
		Kill:      []target{{"./cli", "TestDemoVerifyAdvisesWhatPastes"}},
	},
	{
		Name:      "verify-advice-unnamed",
		File:      "cli/verify.go",
		Find:      "cmds = append(cmds, r.client.SuggestFor(row, \"delete-revision\", args...))",
		Replace:   "cmds, _ = append(cmds, \"chunkview delete-revision --force\"), row",
		Guarantee: "verify's advice to delete a revision names the release and revision, with the flags that find it, and pastes",
		Kill:      []target{{"./cli", "TestDemoVerifyAdvisesWhatPastes"}},
	},
	{
		Name:      "no-terminal-advice-without-demo",
		File:      "cli/root.go",
		Find:      "return noTerminalError(r.suggest(\"ls\", \"\"))",
		Replace:   "return noTerminalError(\"chunkview ls\")",
		Guarantee: "the interactive view refused for want of a terminal advises a command that pastes: chunkview --demo ls under --demo",
		Kill:      []target{{"./cli", "TestTUIWithoutTerminal"}},
	},
}
