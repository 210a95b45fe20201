package cli

import (
	"fmt"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// rollbackWarnings are what a person should know before confirming a rollback
// from latest to revision to: that the default target is itself a failed
// revision, and that a pending latest revision stays behind, pending, under the
// new one (Helm's rollback supersedes the deployed revision only).
// suggest builds the commands they advise (kube.Client.SuggestFor).
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
func (r *run) warnRollback(c *kube.Client, plan *ops.Rollback, byDefault bool) {
	latest, err := plan.Row(plan.From)
	if err != nil {
		return
	}
	target, err := plan.Row(plan.To)
	if err != nil {
		return // the rollback itself reports a vanished revision
	}
	for _, w := range rollbackWarnings(byDefault, latest, target, c.SuggestFor) {
		fmt.Fprintf(r.stderr, "Warning: %s\n", w)
	}
}
