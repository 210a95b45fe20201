package main

// Issue 31's "one rendering layer, two printers": the release list and the
// history, rendered once in package render, printed plain by the CLI and
// styled by the TUI. A file of its own, so that the tables others add to stay
// short.
func init() {
	mutants = append(mutants, render2Mutants...)
}

var render2Mutants = []mutant{
	{
		Name:      "release-failed-not-failed",
		File:      "render/render.go",
		Find:      `case status == "failed":`,
		Replace:   `case status == "failed" && false:`,
		Guarantee: "a failed release's STATUS means Failed, to both front ends (the TUI draws it red)",
		Kill:      []target{{"./render", "TestReleaseTableMeanings"}},
	},
	{
		Name:      "broken-health-not-failed",
		File:      "render/releases.go",
		Find:      `return Cell{Text: "broken", Meaning: Failed, Mark: "✗"}`,
		Replace:   `return Cell{Text: "broken", Meaning: Warning, Mark: "✗"}`,
		Guarantee: "a revision that cannot be read is a failure in HEALTH, not a warning",
		Kill:      []target{{"./render", "TestReleaseTableMeanings"}},
	},
	{
		Name:      "fill-near-limit-plain",
		File:      "render/releases.go",
		Find:      "case share >= FillWarn:",
		Replace:   "case false:",
		Guarantee: "a release that takes 80% or more of its store's limit warns in FILL",
		Kill:      []target{{"./render", "TestReleaseTableMeanings"}},
	},
	{
		Name:      "fill-judged-unrounded",
		File:      "render/releases.go",
		Find:      "share = math.Round(share*100) / 100",
		Replace:   "_ = math.Round",
		Guarantee: "FILL is judged as shown: a release shown at 95% fails, it never reads as a warning",
		Kill:      []target{{"./render", "TestReleaseTableMeanings"}},
	},
	{
		Name:      "screen-app-drifts",
		File:      "render/releases.go",
		Find:      "return ChartCell(l, opts), Text(KnownOr(l, l.Summary.AppVersion, opts)), screenChunks(l, opts)",
		Replace:   "return ChartCell(l, opts), Text(KnownOr(l, l.Summary.ChartVersion, opts)), screenChunks(l, opts)",
		Guarantee: "the CLI and the TUI show a release's app version in the same words",
		Kill:      []target{{"./render", "TestReleaseTableSharedText"}, {"./ui", "TestGolden$"}},
	},
	{
		Name:      "tui-status-mark",
		File:      "render/releases.go",
		Find:      `var statusMarks = map[Meaning]string{OK: "✓", Failed: "✗", Warning: "◔", Muted: "·", Plain: "?"}`,
		Replace:   `var statusMarks = map[Meaning]string{OK: "+", Failed: "✗", Warning: "◔", Muted: "·", Plain: "?"}`,
		Guarantee: "the TUI's STATUS marks come from render: a deployed release reads ✓ deployed",
		Kill:      []target{{"./render", "TestReleaseTableMeanings"}, {"./ui", "TestGolden$"}},
	},
	{
		Name:      "tui-storage-ns-whole",
		File:      "render/releases.go",
		Find:      `return Cell{Text: "·", Meaning: Muted}`,
		Replace:   `return Cell{Text: l.StorageNamespace, Meaning: Muted}`,
		Guarantee: "the TUI's STORAGE NS says · where a release keeps its records in its own namespace, from render",
		Kill:      []target{{"./render", "TestReleaseTableSharedText"}, {"./ui", "TestGoldenOncall"}},
	},
	{
		Name:      "cli-broken-chart",
		File:      "render/releases.go",
		Find:      `return Cell{Text: "<broken>", Meaning: Failed}, dash, dash`,
		Replace:   `return ChartCell(l, opts), dash, dash`,
		Guarantee: "ls, printing render's cells, says <broken> in CHART for a release that cannot be read",
		Kill:      []target{{"./render", "TestReleaseTableMeanings"}, {"./cli", "TestReadCommands"}},
	},
	{
		Name:      "history-broken-description",
		File:      "render/history.go",
		Find:      `return Cell{Text: "cannot be read: " + r.Problem, Meaning: Failed}`,
		Replace:   `return Cell{Text: r.Problem, Meaning: Failed}`,
		Guarantee: "history, printing render's cells, says why a revision cannot be read in DESCRIPTION",
		Kill:      []target{{"./render", "TestHistoryTable"}, {"./cli", "TestDemoHonestHealth"}},
	},
	{
		Name:      "history-superseded-not-muted",
		File:      "render/render.go",
		Find:      `case status == "superseded" || status == "uninstalled":`,
		Replace:   `case status == "uninstalled":`,
		Guarantee: "a superseded revision is muted in the history, to both front ends",
		Kill:      []target{{"./render", "TestHistoryTable"}, {"./ui", "TestGolden$"}},
	},
}
