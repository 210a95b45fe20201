package main

// Issue 31: the chunk layout rendered once (render/layout.go): its cells and
// their meaning, its totals, parts and problems, as inspect and the chunks
// screen both show them.
// A file of its own, so that the tables others add to stay short.
func init() {
	mutants = append(mutants, render3Mutants...)
}

var render3Mutants = []mutant{
	{
		Name:      "layout-missing-not-failed",
		File:      "render/layout.go",
		Find:      "case storage.StateMissing, storage.StateCorrupt, storage.StateWrongTyp:",
		Replace:   "case storage.StateCorrupt, storage.StateWrongTyp:",
		Guarantee: "a missing chunk's state means Failed",
		Kill:      []target{{"./render", "TestLayoutTable"}},
	},
	{
		Name:      "layout-mismatch-shown-ok",
		File:      "render/layout.go",
		Find:      `row = append(row, check(s.HashOK, "ok", "MISMATCH"), check(s.Owned, "ok", "missing"))`,
		Replace:   `row = append(row, check(true, "ok", "MISMATCH"), check(s.Owned, "ok", "missing"))`,
		Guarantee: "a chunk whose hash does not match shows MISMATCH, meaning Failed",
		Kill:      []target{{"./render", "TestLayoutTable"}},
	},
	{
		Name:      "layout-configmap-record-hash-shown",
		File:      "render/layout.go",
		Find:      "if driver == kube.DriverSecret || driver == kube.DriverConfigMap {",
		Replace:   "if driver == kube.DriverSecret {",
		Guarantee: "a record of Helm's ConfigMaps store has no hash or owner column, and its type",
		Kill:      []target{{"./render", "TestLayoutTableOfHelmsRecord"}},
	},
	{
		Name:      "layout-totals-no-helm-verdict",
		File:      "render/layout.go",
		Find:      "case l.HelmSecretBytes > 0:",
		Replace:   "case false:",
		Guarantee: "a chunked revision's totals say whether Helm's Secrets driver could hold it",
		Kill:      []target{{"./render", "TestLayoutTotals"}},
	},
	{
		Name:      "parts-empty-shown",
		File:      "render/layout.go",
		Find:      "if p.Items > 0 {",
		Replace:   "if p.Items >= 0 {",
		Guarantee: "an empty part is left out of what takes the space, in inspect and on the screen",
		Kill:      []target{{"./render", "TestPartsTable"}},
	},
	{
		Name:      "layout-problems-repeated",
		File:      "render/layout.go",
		Find:      `if k == "" || seen[st] {`,
		Replace:   `if k == "" {`,
		Guarantee: "each wrong state is explained once",
		Kill:      []target{{"./render", "TestLayoutProblems"}},
	},
	{
		Name:      "chunks-screen-check-unmarked",
		File:      "ui/screens/chunks/layout.go",
		Find:      "cells[t.Columns[t.Index(name)].Title()] = table.Cell{Text: c.Marked(), Style: common.MeaningStyle(st, c.Meaning)}",
		Replace:   "cells[t.Columns[t.Index(name)].Title()] = table.Cell{Text: c.Text, Style: common.MeaningStyle(st, c.Meaning)}",
		Guarantee: "the chunks screen marks the hash and owner checks with their signs, which read without colour",
		Kill:      []target{{"./ui/screens/chunks", "TestLayoutSaysWhatTheCLISays"}},
	},
	{
		Name:      "chunks-screen-state-unmarked",
		File:      "ui/screens/chunks/styles.go",
		Find:      "return table.Styled(render.SecretState(st).Marked(), style), style",
		Replace:   "return table.Styled(render.SecretState(st).Text, style), style",
		Guarantee: "the chunks screen shows a Secret's state with its sign",
		Kill:      []target{{"./ui/screens/chunks", "TestChunkStatesReadWithoutColour"}},
	},
	{
		Name:      "inspect-state-without-detail",
		File:      "cli/inspect.go",
		Find:      `t.Rows[i][state].Text += ": " + lr.Info.Detail`,
		Replace:   `t.Rows[i][state].Text += ""`,
		Guarantee: "inspect says what is wrong with an object after its state",
		Kill:      []target{{"./cli", "TestInspectTableSaysWhatTheScreenSays"}},
	},
	{
		Name:      "inspect-problem-without-state",
		File:      "cli/inspect.go",
		Find:      `fmt.Fprintf(w, "%s: ", render.SecretState(p.State).Text)`,
		Replace:   `fmt.Fprintf(w, "")`,
		Guarantee: "inspect explains each wrong state after its word, as the chunks screen does",
		Kill:      []target{{"./cli", "TestInspectTableSaysWhatTheScreenSays"}},
	},
	{
		Name:      "fit-revisions-left-no-warning",
		File:      "render/fit.go",
		Find:      "if g.RevisionsLeft <= fit.WarnWithin {",
		Replace:   "if false {",
		Guarantee: "fit warns when few revisions are left before the limit",
		Kill:      []target{{"./render", "TestFitTable"}},
	},
	{
		Name:      "fit-fill-not-judged",
		File:      "render/fit.go",
		Find:      "m, mark := FillMeaning(share)",
		Replace:   "m, mark := Plain, \"\"",
		Guarantee: "fit judges a store's fill as the release list does",
		Kill:      []target{{"./render", "TestFitTable"}},
	},
	{
		Name:      "demo-records-not-dated",
		File:      "demo/seed.go",
		Find:      "if err := backdateRecord(sd.ctx, sd.c, s, rev.Key, rev.Release.Info.LastDeployed.Time); err != nil {",
		Replace:   `if err := error(nil); err != nil || rev.Key == "" {`,
		Guarantee: "the demo's records are as old as their revisions, so AGE agrees with the history",
		Kill:      []target{{"./demo", "TestSnapshotStartsTheSameCluster"}, {"./cli", "TestInspectTableSaysWhatTheScreenSays"}},
	},
	{
		Name:      "backdate-keeps-the-date",
		File:      "internal/fakeapi/cluster.go",
		Find:      "o.SetCreationTimestamp(metav1.NewTime(t).Rfc3339Copy())",
		Replace:   "_ = t",
		Guarantee: "fakeapi's Backdate sets the object's creationTimestamp",
		Kill:      []target{{"./internal/fakeapi", "TestBackdate"}},
	},
	{
		Name:      "history-in-progress-unsaid",
		File:      "ui/screens/history/hints.go",
		Find:      "case inProgress && latest:",
		Replace:   "case inProgress && false:",
		Guarantee: "the history says a pending revision younger than --stuck-after is in progress, as kube.Stuck judges it",
		Kill:      []target{{"./ui/screens/history", "TestPendingInProgressIsNotStuck"}},
	},
	{
		Name:      "releases-in-progress-unsaid",
		File:      "ui/screens/releases/detail.go",
		Find:      "case inProgress:",
		Replace:   "case inProgress && false:",
		Guarantee: "the release list says a pending release younger than --stuck-after is in progress, as kube.Stuck judges it",
		Kill:      []target{{"./ui/screens/releases", "TestPendingInProgressIsNotStuck"}},
	},
}
