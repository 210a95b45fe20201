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
		Find:      `return fmt.Sprintf("Helm 3 and 4 refuse to upgrade while revision %d is %s; a rollback runs, but leaves it %s under the new revision.", rev, status, status)`,
		Replace:   `return fmt.Sprintf("Helm 3 and 4 refuse to upgrade or roll back while revision %d is %s (%s).", rev, status, status)`,
		Guarantee: "what a pending latest revision blocks is said as Helm 3's and 4's own actions decide it: the upgrade is refused, the rollback runs and leaves it pending",
		Kill:      []target{{"./render", "TestPendingMeans"}},
	},
	{
		Name:      "rollback-plan-applies-on-y",
		File:      "ui/theme/keys.go",
		Find:      `Confirm: bind("roll back (apply the plan)", "ctrl+r"),`,
		Replace:   `Confirm: bind("roll back (apply the plan)", "y"),`,
		Guarantee: "y copies in a rollback plan, as everywhere; applying it is ctrl+r, a key of its own",
		Kill:      []target{{"./ui/screens/rollback", "TestRollsBack"}},
	},
	{
		Name:      "fix-apis-not-on-ctrl-r",
		File:      "ui/screens/fixapis/fixapis.go",
		Find:      `return key.NewBinding(key.WithKeys(k.Keys()...), key.WithHelp(k.Help().Key, "write the fix"))`,
		Replace:   `return key.NewBinding(key.WithKeys("y"), key.WithHelp(k.Help().Key, "write the fix"))`,
		Guarantee: "fix-apis' plan is written with ctrl+r, the key that applies every plan, and y only copies it",
		Kill:      []target{{"./ui/screens/fixapis", "TestWritesThePlan"}},
	},
	{
		Name:      "fix-apis-y-does-not-copy",
		File:      "ui/screens/fixapis/fixapis.go",
		Find:      "case key.Matches(msg, s.Keys.Diff.Copy):",
		Replace:   "case false:",
		Guarantee: "y copies fix-apis' plan, as it copies every diff",
		Kill:      []target{{"./ui/screens/fixapis", "TestWritesThePlan"}},
	},
	{
		Name:      "ls-default-not-fitted",
		File:      "cli/lsprint.go",
		Find:      "gap = fitColumns(rows, widths, r.terminalWidth(), []shrink{{chartCol, 14}, {0, 16}})",
		Replace:   "gap = fitColumns(rows, widths, 0, []shrink{{chartCol, 14}, {0, 16}})",
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
	{
		Name:      "mark-outlives-revision",
		File:      "ui/screens/history/history.go",
		Find:      "s.keepMark()",
		Replace:   "_ = s.keepMark",
		Guarantee: "a mark goes with the revision it marked, when it is no longer listed or listed for another record",
		Kill:      []target{{"./ui/screens/history", "TestMarkGoesWithItsRevision"}},
	},
	{
		Name:      "ns-typo-silent",
		File:      "ui/cmdline.go",
		Find:      "case !msg.exists:",
		Replace:   "case false:",
		Guarantee: ":ns NAME of a namespace that does not exist says so and stays where the view was",
		Kill:      []target{{"./ui", "TestCommandMode"}},
	},
	{
		Name:      "detail-cut-to-three-lines",
		File:      "ui/screens/history/hints.go",
		Find:      "room := 3 + s.detailRoom()",
		Replace:   "room := 3",
		Guarantee: "a failure's reason and next step wrap onto the free lines, and e shows them whole",
		Kill:      []target{{"./ui/screens/history", "TestDetailExpands"}},
	},
}
