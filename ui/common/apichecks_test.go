package common

import (
	"context"
	"testing"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
)

// TestAPIChecks: a screen's record of removed-API checks asks once for each
// readable revision, never for one that cannot be read; a new discovery pass
// forgets every report and asks again; a late answer checked against an older
// pass is dropped.
func TestAPIChecks(t *testing.T) {
	ok := kube.RevisionRow{Key: "sh.helm.release.v1.web.v2", StorageNamespace: "default", ResourceVersion: "7"}
	broken := kube.RevisionRow{Key: "sh.helm.release.v1.web.v3", StorageNamespace: "default", ResourceVersion: "9", Broken: true}
	rows := []kube.RevisionRow{ok, broken}
	ctx := context.Background()

	var a APIChecks
	if a.Check(ctx, nil, rows) != nil {
		t.Fatal("asked before discovery answered")
	}
	first, second := &apis.Served{}, &apis.Served{}
	a.Take(ServedMsg{Served: first})
	if a.Check(ctx, nil, rows) == nil {
		t.Fatal("the readable revision was not asked for")
	}
	if !a.asked[RowID(ok)] || a.asked[RowID(broken)] {
		t.Fatalf("asked %v: want the readable revision only", a.asked)
	}
	if a.Check(ctx, nil, rows) != nil {
		t.Fatal("a revision was asked for twice")
	}
	bad := apis.Report{Findings: []apis.Finding{{Problem: apis.Unserved}}}
	a.Take(APIsMsg{Served: first, Reports: map[string]apis.Report{RowID(ok): bad}})
	if _, cannot := a.CannotUpgrade(ok); !cannot || !a.Any() {
		t.Fatalf("the report of the pass asked was not kept: %+v", a)
	}

	a.Take(ServedMsg{Served: second})
	if _, checked := a.Report(ok); checked || a.Any() {
		t.Fatal("a new discovery pass kept the reports of the last")
	}
	if a.Check(ctx, nil, rows) == nil {
		t.Fatal("a new discovery pass did not ask again")
	}
	a.Take(APIsMsg{Served: first, Reports: map[string]apis.Report{RowID(ok): bad}})
	if _, checked := a.Report(ok); checked {
		t.Fatal("a late answer of the older pass was kept")
	}
}
