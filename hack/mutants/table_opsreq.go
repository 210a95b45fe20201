package main

// Issue 32's requests per operation: one permission check, one discovery, no
// dry run of what cannot conflict, no listing of the records that Helm's own
// makes, one read of the revisions a rollback compares. Each entry breaks one
// of them; BenchmarkOperationRequests measures them beside Helm 4.
func init() {
	mutants = append(mutants, opsReqMutants...)
}

var opsReqMutants = []mutant{
	{
		Name:      "rules-review-ignored",
		File:      "kube/ops/permissions.go",
		Find:      "if err != nil || !rulesGrant(st.ResourceRules, a) {",
		Replace:   "if err != nil || st != nil || !rulesGrant(st.ResourceRules, a) {",
		Guarantee: "an operation's permissions are answered by one SelfSubjectRulesReview of the namespace: no access review for what its rules grant",
		Kill:      []target{{"./cli", "TestOperationRequests"}},
	},
	{
		Name:      "rules-review-not-kept",
		File:      "kube/ops/rules.go",
		Find:      "if a, ok := c.byNS[ns]; ok && c.now().Sub(a.at) < rulesTTL {",
		Replace:   "if a, ok := c.byNS[ns]; ok && c.now().Sub(a.at) < 0 {",
		Guarantee: "the apply's review of the release's resources reuses the rules the plan's check read: one rules review per operation",
		Kill:      []target{{"./cli", "TestOperationRequests"}},
	},
	{
		Name:      "rules-grant-names",
		File:      "kube/ops/rules.go",
		Find:      "if len(rule.ResourceNames) > 0 {",
		Replace:   "if false {",
		Guarantee: "a rule that names objects grants those alone: an access to any object of the resource is asked of the authorizer",
		Kill:      []target{{"./kube/ops", "TestRulesGrant"}},
	},
	{
		Name:      "helm-own-discovery",
		File:      "kube/ops/appliers.go",
		Find:      "if lc, err := g.c.Live(); err == nil && lc.Mapper != nil && lc.Discovery != nil {",
		Replace:   "if lc, err := g.c.Live(); err == nil && lc.Mapper == nil && lc.Discovery != nil {",
		Guarantee: "Helm's kube clients map kinds through the connection's discovery, read once per operation, not their own",
		Kill:      []target{{"./cli", "TestOperationRequests"}},
	},
	{
		Name:      "helm-own-version",
		File:      "kube/ops/appliers.go",
		Find:      `if req.Method != http.MethodGet || path.Base(req.URL.Path) != "version" || strings.Contains(req.URL.Path, "/api") {`,
		Replace:   `if req.Method != http.MethodGet || path.Base(req.URL.Path) != "version" || strings.Contains(req.URL.Path, "/") {`,
		Guarantee: "Helm's reads of the server's version are answered from the operation's discovery pass: /version once per operation",
		Kill:      []target{{"./cli", "TestOperationRequests"}},
	},
	{
		Name:      "controllers-own-discovery",
		File:      "kube/ops/controller.go",
		Find:      "r.discovery()",
		Replace:   "",
		Guarantee: "the controller checks of the plan and of the apply read discovery in the operation's one pass",
		Kill:      []target{{"./cli", "TestOperationRequests"}},
	},
	{
		Name:      "dry-run-sole-owner",
		File:      "kube/ops/fieldmanager.go",
		Find:      "if live[i] == nil || soleOwner(live[i], manager) {",
		Replace:   "if live[i] == nil {",
		Guarantee: "an object whose every field the applying manager's own apply owns is not dry-run: it cannot conflict",
		Kill:      []target{{"./cli", "TestOperationRequests"}},
	},
	{
		Name:      "sole-owner-ignores-others",
		File:      "kube/ops/fieldmanager.go",
		Find:      "if f.Manager != manager || f.Operation != metav1.ManagedFieldsOperationApply {",
		Replace:   "if false {",
		Guarantee: "an object another manager owns fields of is still dry-run, and the plan names the conflicts",
		Kill:      []target{{"./kube/ops", "TestRollbackConflictsWithDrift"}},
	},
	{
		Name:      "apply-lists-before-helm",
		File:      "kube/ops/apply.go",
		Find:      "deferCheck := heldByHelmListing(op, p)",
		Replace:   "deferCheck := false",
		Guarantee: "a rollback or uninstall on Helm's stores makes no listing of the records of its own before Helm's first, which is held to the plan",
		Kill:      []target{{"./cli", "TestOperationRequests"}},
	},
	{
		Name:      "deferred-check-unworded",
		File:      "kube/ops/apply.go",
		Find:      "if t := h.track(); deferCheck && t.conflicted() && t.untouched() {",
		Replace:   "if t := h.track(); false && t.untouched() {",
		Guarantee: "a release in Helm's stores that moved on since the plan is refused saying what changed and that nothing was changed",
		Kill:      []target{{"./kube/ops", "TestApplyRefusesMovedHelmRelease"}},
	},
	{
		Name:      "plan-reads-apart",
		File:      "kube/ops/rollback.go",
		Find:      "_ = r.c.PrefetchTogether(ctx, p.latest(), toRow)",
		Replace:   "_ = r.c.Prefetch(ctx, p.latest(), toRow)",
		Guarantee: "a rollback's plan reads the two revisions it compares in one list, on Helm's stores",
		Kill:      []target{{"./cli", "TestOperationRequests"}},
	},
}
