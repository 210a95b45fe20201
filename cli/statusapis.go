package cli

import (
	"context"
	"fmt"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
	"github.com/chunkview/chunkview/kube/live"
)

// statusJSON is status's -o json: the release's status and, when some of the
// revision's objects use an API the cluster no longer serves (or one that is
// deprecated), those objects.
type statusJSON struct {
	*live.ReleaseStatus
	RemovedAPIs []apis.Finding `json:"removedAPIs,omitempty"`
}

// checkStatusAPIs checks the revision status shows against what the cluster
// serves (one discovery pass, shared with the status's own), and adds to its
// notes what Helm can no longer do and the objects deprecated for removal.
// A check that cannot be made is a note too: status reports how objects run,
// and this does not change its exit code.
func checkStatusAPIs(ctx context.Context, c live.Source, chk apiChecker, rows []kube.RevisionRow, st *live.ReleaseStatus) []apis.Finding {
	var row *kube.RevisionRow
	for i := range rows {
		if rows[i].Revision == st.Revision {
			row = &rows[i]
		}
	}
	if row == nil {
		return nil
	}
	served, err := chk.ServedAPIs(ctx)
	var rep apis.Report
	if err == nil {
		rep, err = chk.CheckAPIs(ctx, *row, served, apis.Options{})
	}
	if err != nil {
		st.Remarks = append(st.Remarks, "whether the revision uses APIs the cluster no longer serves could not be checked: "+message(err))
		return nil
	}
	if un := rep.With(apis.Unserved); len(un) > 0 {
		st.Remarks = append(st.Remarks, fmt.Sprintf("%s %s: the cluster no longer serves %s; `%s` writes a revision on served versions",
			apis.CannotUpgrade, row.Name, findingRefs(un), c.Config().SuggestFor(*row, "fix-apis")))
	}
	for _, f := range rep.With(apis.Deprecated) {
		st.Remarks = append(st.Remarks, "deprecated API: "+f.String())
	}
	return rep.Findings
}
