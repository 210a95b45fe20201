package main

// Issue 29's second batch: the words on pending releases, one meaning for y,
// ls's default columns, the plan past an unreadable revision, and wrapping
// that keeps a flag and a size whole. A file of its own, so that the tables
// others add to stay short.
func init() {
	mutants = append(mutants, oncall2Mutants...)
}

var oncall2Mutants = []mutant{
	{
		Name:      "pending-means-rollback-refused",
		File:      "render/pending.go",
		Find:      "a rollback runs, but leaves it %s under the new revision.",
		Replace:   "Helm refuses to roll it back either (%s).",
		Guarantee: "what a pending latest revision blocks is said as Helm 3's and 4's own actions decide it: the upgrade is refused, the rollback runs and leaves it pending",
		Kill:      []target{{"./render", "TestPendingMeans"}},
	},
	{
		Name:      "rollback-plan-applies-on-y",
		File:      "ui/theme/keys.go",
		Find:      `Confirm: b(k("ctrl+r"), "ctrl+r", "roll back (apply the plan)"),`,
		Replace:   `Confirm: b(k("y"), "y", "roll back (apply the plan)"),`,
		Guarantee: "y copies in a rollback plan, as everywhere; applying it is ctrl+r, a key of its own",
		Kill:      []target{{"./ui/screens/rollback", "TestRollsBack"}},
	},
	{
		Name:      "ls-default-not-fitted",
		File:      "cli/lsprint.go",
		Find:      "gap = fitColumns(rows, widths, r.terminalWidth(),",
		Replace:   "_ = fitColumns(rows, widths, 0,",
		Guarantee: "ls's default table fits the terminal, the charts' versions whole",
		Kill:      []target{{"./cli", "TestLsColumns"}},
	},
	{
		Name:      "rollback-past-unreadable-compares-itself",
		File:      "ui/screens/rollback/rollback.go",
		Find:      "if s.plan != nil && len(s.plan.Drop) > 0 {",
		Replace:   "if false {",
		Guarantee: "the plan past an unreadable latest revision shows what goes and what comes back, never the revision compared with itself",
		Kill:      []target{{"./ui", "TestRollbackPastUnreadableShowsTheChoice"}},
	},
	{
		Name:      "wrap-splits-flags-and-sizes",
		File:      "internal/human/human.go",
		Find:      "s = joinUnbreakable(s)",
		Replace:   "_ = joinUnbreakable(s)",
		Guarantee: "the screens' wrapping never splits \"(--history-max)\" or \"1.9 MiB\"",
		Kill:      []target{{"./internal/human", "TestWrapCellsJoins"}},
	},
}
