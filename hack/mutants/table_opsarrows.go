package main

// Issue 31's house work: the judgement of a stuck revision, now a pure
// function of kube (kube.Stuck) rather than a method of the Client, and the
// one reading of every kind's status conditions in kube/live's Describe. A
// file of its own, so that the tables others add to stay short.
func init() {
	mutants = append(mutants, opsarrowsMutants...)
}

var opsarrowsMutants = []mutant{
	{
		Name:      "stuck-bound-exclusive",
		File:      "kube/client.go",
		Find:      "if now.Sub(r.Updated) >= after {",
		Replace:   "if now.Sub(r.Updated) > after {",
		Guarantee: "a revision in flight for --stuck-after or longer is stuck (ls STUCK, fix-stuck): at the bound itself, not only past it",
		Kill:      []target{{"./kube", "TestStuck"}},
	}, {
		Name:      "describe-condition-time-lost",
		File:      "kube/live/describe.go",
		Find:      `at, _ := v.FieldByName("LastTransitionTime").Interface().(metav1.Time)`,
		Replace:   `var at metav1.Time`,
		Guarantee: "describe shows when each condition of a workload or Pod last changed, whatever the kind's condition type",
		Kill:      []target{{"./kube/live", "TestDescribeConditions"}},
	},
	{
		Name:      "describe-condition-reason-as-message",
		File:      "kube/live/describe.go",
		Find:      `Reason: v.FieldByName("Reason").String(), Message: v.FieldByName("Message").String(), LastTransition: at.Time})`,
		Replace:   `Reason: v.FieldByName("Message").String(), Message: v.FieldByName("Message").String(), LastTransition: at.Time})`,
		Guarantee: "describe shows each condition's own reason and its message, masked, whatever the kind's condition type",
		Kill:      []target{{"./kube/live", "TestDescribeConditions"}},
	},
}
