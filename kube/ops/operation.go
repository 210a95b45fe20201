package ops

import "context"

// Operation is one change to a release, planned from the rows a person was shown
// and applied by Runner.Apply exactly as planned, or not at all. Only this package
// defines operations: Rollback, Uninstall, DeleteRevision and FixStuck.
type Operation interface {
	// Verb names the operation as permissions and messages do (kube.OpRollback,
	// ...).
	Verb() string
	// Base is the release as the operation was planned from.
	Base() *Plan
	// Helm is the Helm whose actions and types run the operation: 3 or 4 (see
	// helmFor). A plan shows it before it is confirmed.
	Helm() int
	// run applies the operation through h, whose driver is held to the plan.
	run(ctx context.Context, r *Runner, h helm) error
}
