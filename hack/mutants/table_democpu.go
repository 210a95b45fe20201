package main

// Issue 29's items 7 (the release list's detail line after a status rewrite) and
// 16 (the demo's seed), in their own file so that the other tables stay under
// 500 lines.
func init() {
	mutants = append(mutants, demoCPUMutants...)
}

var demoCPUMutants = []mutant{
	{
		Name:      "list-rewrite-not-reread",
		File:      "ui/screens/releases/live.go",
		Find:      "it.reread = &unread",
		Replace:   "_ = unread",
		Guarantee: "a status rewrite of a row's latest record, which the watch sees as metadata alone, is read again: the detail line drops the pending record's description and size without r",
		Kill:      []target{{"./ui", "TestLiveDetailFollowsStatusRewrite"}},
	},
}
