package cli

import (
	"context"
	"fmt"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
)

// lsAPIs is what `ls --removed-apis [--kube-version X.Y]` asks: the releases
// Helm can no longer upgrade on this cluster, because their latest revision
// uses an API it does not serve, or, with a target release, will not once the
// cluster runs it (k8s.io/api's lifecycle data).
type lsAPIs struct {
	on          bool
	kubeVersion string
	target      apis.Version
	// served is the cluster's discovery, read before the listing.
	served *apis.Served
}

func (a *lsAPIs) validate() error {
	if a.kubeVersion == "" {
		return nil
	}
	if !a.on {
		return usageErrorf("--kube-version %s answers --removed-apis: add it", a.kubeVersion)
	}
	v, err := apis.ParseVersion(a.kubeVersion)
	if err != nil {
		return usageErrorf("--kube-version: %v", err)
	}
	a.target = v
	return nil
}

// affected are the findings that list a release: an API the cluster does not
// serve, or that the target release will not.
func (a *lsAPIs) affected(rep apis.Report) []apis.Finding {
	return rep.With(apis.Unserved, apis.Removed)
}

// keep checks the latest revision of each item the filter shows (one
// discovery pass, then each record decoded through the details cache: no
// superseded revision is read) and returns the items that are affected, with
// their findings, and the others left out; items the filter hides are kept
// unchecked, for its note.
func (a *lsAPIs) keep(ctx context.Context, r *run, chk releaseChecker, f *lsFilter, items []ReleaseItem) ([]ReleaseItem, error) {
	served := a.served
	if served == nil {
		var err error
		if served, err = chk.ServedAPIs(ctx); err != nil {
			return nil, err
		}
	}
	var rows []*kube.RevisionRow
	for _, it := range items {
		if f.keep(it) && it.latest != nil {
			rows = append(rows, it.latest)
		}
	}
	reps, err := chk.CheckAPIsOf(ctx, rows, served, apis.Options{Target: a.target})
	if err != nil {
		return nil, err
	}
	out := items[:0:0]
	checked := 0
	for _, it := range items {
		if !f.keep(it) || it.latest == nil {
			out = append(out, it)
			continue
		}
		rep, ok := reps[it.latest]
		if !ok {
			if !it.Broken {
				fmt.Fprintf(r.stderr, "Warning: revision %d of %s/%s could not be read to check its APIs\n", it.Revision, it.StorageNamespace, it.Name)
			}
			continue
		}
		checked++
		if len(a.affected(rep)) == 0 {
			continue
		}
		it.RemovedAPIs = rep.Findings
		out = append(out, it)
	}
	if len(out) == 0 || checked == 0 {
		fmt.Fprintf(r.stderr, "Note: %s\n", a.noneNote(checked, served.Version))
	}
	return out, nil
}

// noneNote says that no release was found affected, and against what.
func (a *lsAPIs) noneNote(checked int, cluster apis.Version) string {
	against := "this cluster (Kubernetes " + cluster.String() + ")"
	if !a.target.IsZero() {
		against += " or Kubernetes " + a.target.String()
	}
	return fmt.Sprintf("no release of the %d checked uses an API %s does not serve", checked, against)
}

// health is the HEALTH column of an affected release: removed-apis for one
// Helm can no longer upgrade now, removed-in-X.Y for one it cannot once the
// cluster runs the target release.
func (a *lsAPIs) health(it ReleaseItem) string {
	for _, f := range it.RemovedAPIs {
		if f.Problem == apis.Unserved {
			return "removed-apis"
		}
	}
	if len(it.RemovedAPIs) > 0 && !a.target.IsZero() {
		return "removed-in-" + a.target.String()
	}
	return ""
}

// warn says, for each affected release, which objects stop Helm and the
// command that fixes them.
func (a *lsAPIs) warn(r *run, c listClient, items []ReleaseItem) {
	for _, it := range items {
		var now, later []apis.Finding
		for _, f := range it.RemovedAPIs {
			switch f.Problem {
			case apis.Unserved:
				now = append(now, f)
			case apis.Removed:
				later = append(later, f)
			}
		}
		where := it.StorageNamespace + "/" + it.Name
		if len(now) > 0 {
			fmt.Fprintf(r.stderr, "Warning: %s %s (revision %d): the cluster no longer serves %s; `%s` writes a revision on served versions\n",
				apis.CannotUpgrade, where, it.Revision, findingRefs(now), c.Config().SuggestFor(*it.latest, "fix-apis"))
		}
		if len(later) > 0 {
			fmt.Fprintf(r.stderr, "Warning: %s: Kubernetes %s no longer serves %s; upgrade the release onto the successors before the cluster\n",
				where, a.target, findingRefs(later))
		}
	}
}

// findingRefs names findings' objects, each with its version and successor.
func findingRefs(fs []apis.Finding) string {
	s := ""
	for i, f := range fs {
		if i > 0 {
			s += ", "
		}
		s += f.Ref() + " (" + f.APIVersion
		if f.Successor != nil {
			s += " → " + f.Successor.APIVersion
		}
		s += ")"
	}
	return s
}
