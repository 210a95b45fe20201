package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// rollbackWarnings are what a person should know before confirming a rollback
// from latest to revision to: that the default target is itself a failed
// revision, and that a pending latest revision stays behind, pending, under the
// new one (Helm's rollback supersedes the deployed revision only).
// suggest builds the commands they advise (kube.Config.SuggestFor).
func rollbackWarnings(byDefault bool, latest, target kube.RevisionRow, suggest func(row kube.RevisionRow, verb string, args ...string) string) []string {
	var out []string
	if byDefault && target.Status == "failed" {
		out = append(out, fmt.Sprintf("the default target, revision %d (the one before the latest), is failed; name a good revision to roll back to: `%s` lists them", target.Revision, suggest(latest, "history")))
	}
	if kube.Pending(latest.Status) {
		out = append(out, fmt.Sprintf("revision %d is %s: the rollback records a new revision on top and leaves revision %d %s in the history; `%s` clears it first", latest.Revision, latest.Status, latest.Revision, latest.Status, suggest(latest, "fix-stuck")))
	}
	return out
}

// warnRollback prints rollbackWarnings on stderr, before the question, about the
// revisions the plan was made from.
func (r *run) warnRollback(c operationClient, plan *ops.Rollback, byDefault bool) {
	latest, err := plan.Row(plan.From)
	if err != nil {
		return
	}
	target, err := plan.Row(plan.To)
	if err != nil {
		return // the rollback itself reports a vanished revision
	}
	for _, w := range rollbackWarnings(byDefault, latest, target, c.Config().SuggestFor) {
		fmt.Fprintf(r.stderr, "Warning: %s\n", w)
	}
}

// warnRollbackAPIs checks the revisions the rollback reads against what the
// cluster serves (one discovery pass) and warns, before the question, of each
// one that uses an API it no longer serves: Helm's rollback fails on it and
// breaks the release again. A check that cannot be made is said, not fatal.
func (r *run) warnRollbackAPIs(ctx context.Context, rn *ops.Runner, c operationClient, plan *ops.Rollback) *ops.RollbackAPIs {
	served, err := rn.ServedAPIs(ctx)
	var ra ops.RollbackAPIs
	if err == nil {
		ra, err = rn.RollbackAPIs(ctx, plan, served)
	}
	if errors.Is(err, kube.ErrNoLive) {
		return nil // the demo's cluster: no objects, no APIs to check
	}
	if err != nil {
		fmt.Fprintf(r.stderr, "Warning: whether the revisions use APIs the cluster no longer serves could not be checked: %s\n", message(err))
		return nil
	}
	if !ra.Any() {
		return nil
	}
	latest, err := plan.Row(plan.From)
	if err != nil {
		return &ra
	}
	suggest := func(verb string, args ...string) string { return c.Config().SuggestFor(latest, verb, args...) }
	for _, w := range ra.Warnings(plan.Release, suggest) {
		fmt.Fprintf(r.stderr, "Warning: %s\n", w)
	}
	return &ra
}
