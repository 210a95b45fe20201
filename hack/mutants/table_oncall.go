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
		File:      "kube/diff.go",
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
		Find:      "cmds = append(cmds, r.client.Config().SuggestFor(row, \"delete-revision\", args...))",
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
	{
		Name:      "flux-helmrelease-own-namespace-only",
		File:      "kube/owner/controllers.go",
		Find:      "return read(ctx, c, ns, true)",
		Replace:   "return read(ctx, c, ns, c.Config().AllNamespaces || ns == \"\")",
		Guarantee: "a Flux HelmRelease kept in another namespace (flux-system) is found by history -n APP and ls -n APP",
		Kill:      []target{{"./cli", "TestFluxHelmReleaseInAnotherNamespace"}},
	},
	{
		Name:      "flux-namespace-not-looked-in",
		File:      "kube/owner/controllers.go",
		Find:      "for _, n := range append([]string{ns, FluxNamespace}, c.Config().FallbackNamespaces...) {",
		Replace:   "for _, n := range append([]string{ns}, c.Config().FallbackNamespaces...) {",
		Guarantee: "a user who may not list HelmReleases across namespaces still finds one in flux-system",
		Kill:      []target{{"./cli", "TestFluxHelmReleaseInAnotherNamespace"}},
	},
	{
		Name:      "flux-partial-said-nothing",
		File:      "kube/owner/controllers.go",
		Find:      "out.unreadable[kube.KindHelmRelease] = partial",
		Replace:   "_ = partial",
		Guarantee: "a user who may list HelmReleases in some namespaces only is told that HelmReleases elsewhere were not read, and where they were looked for",
		Kill:      []target{{"./cli", "TestFluxHelmReleaseInAnotherNamespace"}},
	},
	{
		Name:      "olmv1-head-not-peeked",
		File:      "kube/summaries.go",
		Find:      "if sum, ok := peekUnlessSingle(idx, single); ok {",
		Replace:   "if sum, ok := peekUnlessSingle(idx, single); ok && false {",
		Guarantee: "ls -A -a over OLMv1's layout without ClusterExtensions reads only each latest revision's head: no chunk, no superseded revision, at most 20% of the bytes stored",
		Kill:      []target{{"./cli", "TestOLMv1ListsWithoutExtensions"}},
	},
	{
		Name:      "olmv1-head-only-unsaid",
		File:      "cli/ls.go",
		Find:      "if note := headOnlyNote(out.Releases); note != \"\" {",
		Replace:   "if note := headOnlyNote(out.Releases); false {",
		Guarantee: "ls says what it could not learn of releases read from their latest revision's head alone (their namespace and size)",
		Kill:      []target{{"./cli", "TestOLMv1ListsWithoutExtensions"}},
	},
	{
		Name:      "get-metadata-no-dependencies",
		File:      "cli/getmetadata.go",
		Find:      "m.Annotations, m.Dependencies = md.Annotations, md.Dependencies",
		Replace:   "m.Annotations = md.Annotations",
		Guarantee: "get metadata prints what helm get metadata prints of a revision, dependencies included",
		Kill:      []target{{"./cli", "TestGetMetadataAsHelm"}},
	},
	{
		Name:      "custom-columns-missing-blank",
		File:      "cli/template.go",
		Find:      "if len(vals) == 0 {",
		Replace:   "if len(vals) < 0 {",
		Guarantee: "-o custom-columns= prints what kubectl's printer prints, <none> where an expression finds nothing",
		Kill:      []target{{"./cli", "TestTemplateOutputsAsKubectl"}},
	},
	{
		Name:      "missing-chunks-counted-as-secrets",
		File:      "kube/health.go",
		Find:      "return fmt.Sprintf(\"%d of %d chunks missing\", gone, len(r.chunkNames)+1)",
		Replace:   "return fmt.Sprintf(\"%d of %d chunks missing\", gone, len(r.chunkNames))",
		Guarantee: "a revision missing a chunk counts its chunks one way: \"1 of 5 chunks missing: chunk 4 of 5\"",
		Kill:      []target{{"./kube", "TestCheckHealth$"}, {"./cli", "TestDemoHonestHealth"}},
	},
}
