package screentest

import (
	"strconv"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// The demo holds no records of Helm's own stores: the rows below are built by
// hand and handed to the screens as the answers of their loads. Listing Helm's
// stores on the demo finds nothing, so a client reading every store is safe to
// use.

const mib = 1 << 20

// StoreRow is the latest revision of a release in store d, fill of its limit.
func StoreRow(d, name string, rev int, fill float64) kube.RevisionRow {
	limit := int64(mib)
	if d == kube.DriverChunked {
		limit = 8 * ChunkSize
	}
	return kube.RevisionRow{
		Driver: d, StorageNamespace: "default", Name: name, Revision: rev, Status: "deployed",
		Key: storage.RecordKey(name, rev), ResourceVersion: "9" + strconv.Itoa(rev), Updated: Now.Add(-2 * time.Hour),
		Known: true, Checked: true, LimitBytes: limit,
		Summary: storage.Summary{Namespace: "default", Chart: name, ChartVersion: "1.0." + strconv.Itoa(rev), AppVersion: "2.0",
			StoredBytes: int64(fill * float64(limit)), Chunks: 1, Description: "Upgrade complete"},
	}
}

// MixedRows are releases of all three stores at 10%, 85% and 97% of their limits,
// and one name held by two stores.
func MixedRows() []kube.ReleaseRow {
	return []kube.ReleaseRow{
		{Latest: StoreRow(kube.DriverChunked, "grafana", 3, 0.10), Revisions: 3},
		{Latest: StoreRow(kube.DriverConfigMap, "ingress-nginx", 12, 0.85), Revisions: 10},
		{Latest: StoreRow(kube.DriverSecret, "loki-stack", 6, 0.97), Revisions: 6},
		{Latest: StoreRow(kube.DriverChunked, "redis", 2, 0.05), Revisions: 2},
		{Latest: StoreRow(kube.DriverSecret, "redis", 4, 0.02), Revisions: 4},
	}
}

// LokiHistory is a release in Helm's Secrets store growing 45 KiB a revision,
// its latest at about 90% of the Secret's 1 MiB: revision 9 will not fit.
func LokiHistory() []kube.RevisionRow {
	var rows []kube.RevisionRow
	for v := 1; v <= 6; v++ {
		r := StoreRow(kube.DriverSecret, "loki-stack", v, 0)
		r.Summary.StoredBytes = int64(640+45*v) << 10
		r.Updated = Now.Add(-time.Duration(7-v) * 24 * time.Hour)
		if v < 6 {
			r.Status = "superseded"
		}
		rows = append(rows, r)
	}
	return rows
}

// LokiLayout is the layout of a Helm record as kube draws it: one Secret, its
// share of 1 MiB, and what takes its room.
func LokiLayout() *storage.Layout {
	row := LokiHistory()[5]
	n := int(row.Summary.StoredBytes)
	rls := SimpleRelease("loki-stack", "default", 6, release.StatusDeployed, 64<<10, Now.Add(-24*time.Hour))
	return &storage.Layout{
		Key: row.Key, Release: row.Name, Revision: row.Revision, Status: row.Status,
		Index: storage.SecretInfo{Name: row.Key, Role: storage.RoleRecord, Type: string(kube.HelmSecretType), Bytes: n,
			Share: float64(n) / mib, State: storage.StateOK, HashOK: true, Owned: true},
		StoredBytes: n, HelmSecretBytes: n, HelmSecretFits: true, DecodedBytes: 6 * n,
		Parts: storage.Breakdown(rls),
	}
}
