package main

// Issue 29's item 1: the resources view drills down to a workload's Pods, a
// container's log and an object's description. A file of its own, so that
// the tables others add to stay short.
func init() {
	mutants = append(mutants, drillMutants...)
}

var drillMutants = []mutant{
	{
		Name:      "tui-log-unmasked",
		File:      "ui/screens/pods/log.go",
		Find:      "out[i] = s.pods.Scrub(l)",
		Replace:   "out[i] = l",
		Guarantee: "the TUI's log view masks every line with the release's scrub, the one `chunkview logs` masks with, until v",
		Kill:      []target{{"./ui/screens/pods", "TestHookLogMasked|TestFollowStreamsAndStops"}},
	},
	{
		Name:      "tui-follow-not-stopped",
		File:      "ui/screens/pods/log.go",
		Find:      "s.cancel()",
		Replace:   "_ = s.cancel",
		Guarantee: "closing a followed log stops its stream: the reading goroutine returns",
		Kill:      []target{{"./ui/screens/pods", "TestFollowStreamsAndStops"}},
	},
	{
		Name:      "tui-enter-first-object",
		File:      "ui/screens/status/status.go",
		Find:      "return its[s.sel], true",
		Replace:   "return its[0], true",
		Guarantee: "enter, l and d act on the object under the cursor of the resources view",
		Kill:      []target{{"./ui", "TestDrillGolden|TestDrillOnRealServer"}},
	},
	{
		Name:      "tui-pods-any-controller",
		File:      "kube/live/pods.go",
		Find:      `return ref.Kind == "ReplicaSet" && strings.HasPrefix(ref.Name, name+"-")`,
		Replace:   `return true`,
		Guarantee: "enter on a Deployment lists the Pods its ReplicaSets control, not another controller's carrying its labels (on a real API server)",
		Kill:      []target{{"./ui", "TestDrillOnRealServer"}},
	},
	{
		Name:      "tui-log-not-failing-first",
		File:      "ui/screens/pods/log.go",
		Find:      "s.idx = i",
		Replace:   "s.idx = i * 0",
		Guarantee: "l on a workload shows its failing container's log first, not the first Pod's",
		Kill:      []target{{"./ui", "TestDrillOnRealServer"}},
	},
}
