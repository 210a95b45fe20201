package main

// Issue 29's items 2 and 3: the Pods behind a release's workloads, the logs of
// its failing containers, and status in helm status's habits. A file of its
// own, so that the tables others add to stay short.
func init() {
	mutants = append(mutants, oncall3Mutants...)
}

var oncall3Mutants = []mutant{
	{
		Name:      "pods-selector-ignored",
		File:      "kube/live/pods.go",
		Find:      "l, err := cs.CoreV1().Pods(w.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String(), Limit: MaxWorkloadPods})",
		Replace:   "l, err := cs.CoreV1().Pods(w.Namespace).List(ctx, metav1.ListOptions{Limit: MaxWorkloadPods})",
		Guarantee: "a workload's Pods are those its spec.selector selects: a Pod of its ReplicaSet's name whose labels it does not select is not among them",
		Kill:      []target{{"./cli", "TestStatusWidePodsAndLogs"}},
	},
	{
		Name:      "pods-any-controller",
		File:      "kube/live/pods.go",
		Find:      `return ref.Kind == "ReplicaSet" && strings.HasPrefix(ref.Name, name+"-")`,
		Replace:   `return true`,
		Guarantee: "a Deployment's Pods are those its ReplicaSets control: another controller's Pods carrying the labels it selects (a hook Job's) are not counted as its",
		Kill:      []target{{"./cli", "TestStatusWidePodsAndLogs|TestLogsDemo"}},
	},
	{
		Name:      "failing-picks-every-container",
		File:      "kube/live/pods.go",
		Find:      "return c.Restarts > 0",
		Replace:   "return true",
		Guarantee: "logs with no object named picks the failing containers alone: not a running one that never restarted",
		Kill:      []target{{"./cli", "TestLogsDemo"}},
	},
	{
		Name:      "failing-misses-exit-code",
		File:      "kube/live/pods.go",
		Find:      "case c.ExitCode != nil && *c.ExitCode != 0:",
		Replace:   "case false:",
		Guarantee: "a container that ended with a non-zero exit code is failing, restarted or not (a hook Job's failed attempts)",
		Kill:      []target{{"./cli", "TestLogsDemo"}},
	},
	{
		Name:      "logs-unmasked",
		File:      "kube/live/logs.go",
		Find:      `_, err := io.WriteString(w, prefix+scrub(line)+"\n")`,
		Replace:   `_, err := io.WriteString(w, prefix+line+"\n")`,
		Guarantee: "logs masks every line of the secrets the release holds, unless --reveal",
		Kill:      []target{{"./cli", "TestLogsDemo"}},
	},
	{
		Name:      "status-events-null",
		File:      "kube/live/statusevents.go",
		Find:      "s.Events = append([]WarningEvent{}, evs[:min(len(evs), MaxStatusEvents)]...)",
		Replace:   "s.Events = evs[:min(len(evs), MaxStatusEvents)]",
		Guarantee: "status -o json's events are [] when there are none, never null",
		Kill:      []target{{"./cli", "TestStatusDemoWideAndNotes"}},
	},
	{
		Name:      "status-notes-are-remarks",
		File:      "kube/live/releasestatus.go",
		Find:      "Remarks []string `json:\"remarks,omitempty\"`",
		Replace:   "Remarks []string `json:\"notes,omitempty\"`",
		Guarantee: "status -o json's notes are the chart's NOTES, as helm status's; chunkview's own remarks are remarks",
		Kill:      []target{{"./cli", "TestStatusDemoWideAndNotes|TestStatusCLIFailedHook"}},
	},
	{
		Name:      "status-notes-unmasked",
		File:      "kube/live/status.go",
		Find:      "st.Notes = st.scrub(rel.Info.Notes)",
		Replace:   "st.Notes = rel.Info.Notes",
		Guarantee: "the chart's NOTES status shows are masked of the release's secrets, as get notes's, unless --reveal",
		Kill:      []target{{"./cli", "TestSecretsMaskedEverywhere"}},
	},
	{
		Name:      "status-header-not-helms",
		File:      "cli/statusprint.go",
		Find:      `fmt.Fprintf(b, "LAST DEPLOYED: %s\n", s.LastDeployed.Format(time.ANSIC))`,
		Replace:   `fmt.Fprintf(b, "LAST DEPLOYED: %s\n", s.LastDeployed.Format(time.RFC3339))`,
		Guarantee: "status's header is helm status's: LAST DEPLOYED as helm prints it",
		Kill:      []target{{"./cli", "TestStatusCLI$"}},
	},
}
