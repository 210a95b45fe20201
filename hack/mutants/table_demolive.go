package main

// The demo's live objects and controllers (issue 29, items 14 and 15), in their
// own file so that the other tables stay under 500 lines.
func init() {
	mutants = append(mutants, demoLiveMutants...)
}

var demoLiveMutants = []mutant{
	{
		Name:      "demo-rollout-not-stuck",
		File:      "demo/livestories.go",
		Find:      `if u.GetKind() != "Deployment" {`,
		Replace:   `if true {`,
		Guarantee: "the demo's web-frontend rollout is stuck: status reads its Deployment InProgress",
		Kill:      []target{{"./cli", "TestStatusDemo"}, {"./ui", "TestProgramDemoStuckRollout"}},
	},
	{
		Name:      "demo-no-drift",
		File:      "demo/livestories.go",
		Find:      `_ = unstructured.SetNestedField(u.Object, "0.70", "data", "THRESHOLD")`,
		Replace:   `_ = unstructured.SetNestedField(u.Object, "0.78", "data", "THRESHOLD")`,
		Guarantee: "the demo's fraud-model ConfigMap drifted from its manifest, and drift finds it",
		Kill:      []target{{"./cli", "TestDriftDemo"}},
	},
	{
		Name:      "demo-no-extensions",
		File:      "demo/livestories.go",
		Find:      "case s.owner == OLMOwner:",
		Replace:   "case s.owner == \"nobody\":",
		Guarantee: "the OLMv1 demo serves its ClusterExtensions, so a rollback of cert-manager is refused with exit 5",
		Kill:      []target{{"./cli", "TestDemoControllersRefuse"}},
	},
	{
		Name:      "demo-events-unselected",
		File:      "internal/fakeapi/validate.go",
		Find:      `set["reason"], set["reportingComponent"], set["source"], set["type"] = o.Reason, o.ReportingController, o.Source.Component, o.Type`,
		Replace:   `set["reason"], set["reportingComponent"], set["source"] = o.Reason, o.ReportingController, o.Source.Component`,
		Guarantee: "the in-memory cluster selects Events by type as a real API server does (status's Warning events)",
		Kill:      []target{{"./internal/fakeapi", "TestParityEvents"}, {"./cli", "TestStatusDemo"}},
	},
	{
		Name:      "demo-log-tail-ignored",
		File:      "internal/fakeapi/discovery.go",
		Find:      "b = tailLines(b, int(*opts.TailLines))",
		Replace:   "_ = tailLines",
		Guarantee: "the in-memory cluster's pods/log honours tailLines, as the kubelet does",
		Kill:      []target{{"./internal/fakeapi", "TestPodLogs"}},
	},
	{
		Name:      "confirm-names-storage-namespace",
		File:      "ui/common/rows.go",
		Find:      `if ns := ReleaseNamespace(rows[newest]); ns != "?" && ns != "" {`,
		Replace:   `if ns := ""; ns != "" {`,
		Guarantee: "an operation's confirmation names the release's namespace, not olmv1-system where an extension's records are",
		Kill:      []target{{"./ui/common", "TestActionNamespace"}},
	},
}
