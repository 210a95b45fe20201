package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
)

// RollbackAPIs is what the revisions a planned rollback reads use that the
// cluster no longer serves. Helm's rollback builds the objects of both the
// latest revision and the one rolled back to before it applies anything, and
// after it recorded its new revision: either one's unserved API fails it
// there, and leaves that revision pending-rollback (chunkview marks it
// failed), which breaks the release again.
type RollbackAPIs struct {
	// To and From are the revisions; Target and Current their objects that
	// use unserved APIs.
	To      int            `json:"to"`
	From    int            `json:"from"`
	Target  []apis.Finding `json:"target,omitempty"`
	Current []apis.Finding `json:"current,omitempty"`
}

// Any says whether either revision uses an unserved API.
func (a RollbackAPIs) Any() bool { return len(a.Target)+len(a.Current) > 0 }

// RollbackAPIs checks the revisions of a planned rollback against what the
// cluster serves (kube.Checker.ServedAPIs). Both were decoded for the plan: the
// details cache has them.
func (r *Runner) RollbackAPIs(ctx context.Context, o *Rollback, served *apis.Served) (RollbackAPIs, error) {
	out := RollbackAPIs{To: o.To, From: o.From}
	check := func(rev int) ([]apis.Finding, error) {
		row, err := o.Row(rev)
		if err != nil {
			return nil, err
		}
		rep, err := kube.NewChecker(r.c).CheckAPIs(ctx, row, served, apis.Options{})
		return rep.With(apis.Unserved), err
	}
	var err error
	if out.Target, err = check(o.To); err != nil || o.From == o.To {
		return out, err // one revision: said once, as the target
	}
	out.Current, err = check(o.From)
	return out, err
}

// Warnings say what a person should know before confirming the rollback,
// with the command that fixes the latest revision (suggest builds it for the
// release, with the flags that found it, as kube.Config.SuggestFor does).
func (a RollbackAPIs) Warnings(release string, suggest func(verb string, args ...string) string) []string {
	var out []string
	if len(a.Target) > 0 {
		out = append(out, fmt.Sprintf("revision %d uses APIs the cluster no longer serves (%s): Helm cannot build its objects, so the rollback fails after recording its new revision, and breaks the release again; roll back to a revision that uses served APIs",
			a.To, refs(a.Target)))
	}
	if len(a.Current) > 0 {
		out = append(out, fmt.Sprintf("%s %s: revision %d, which the rollback reads first, uses APIs the cluster no longer serves (%s), so the rollback fails too; `%s` writes a revision on served APIs first",
			apis.CannotUpgrade, release, a.From, refs(a.Current), suggest("fix-apis")))
	}
	return out
}

// refs names findings' objects: "PodDisruptionBudget/web (policy/v1beta1), ...".
func refs(fs []apis.Finding) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Ref() + " (" + f.APIVersion + ")"
	}
	return strings.Join(out, ", ")
}
