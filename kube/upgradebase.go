package kube

import (
	"context"
	"fmt"
	"maps"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
)

// UpgradeBase is what an upgrade of a release starts from, read the way Helm's
// upgrade action reads it: its latest revision, its latest deployed one, and the
// cluster's capabilities; with the history's sizes for the growth.
type UpgradeBase struct {
	// Rows are the release's revisions, oldest first, with their stored sizes
	// where they could be read.
	Rows []RevisionRow
	// Last is the latest revision, decoded; Deployed the latest deployed one
	// when that is another (nil otherwise).
	Last, Deployed *release.Release
	// Capabilities are the cluster's, as Helm's action discovers them: its
	// version and the API versions it serves.
	Capabilities *chartutil.Capabilities
	// SizesUnread says why some revisions' sizes are missing from Rows ("" when
	// none are).
	SizesUnread string
}

// UpgradeBase reads what an upgrade of release name, whose records are in
// storage namespace ns, starts from. It decodes the latest revision and the
// latest deployed one (through the details cache), and reads the other
// revisions' sizes as the history does: from metadata where chunkview recorded
// them. Helm's release records lose their custom labels to the object's
// metadata; they are put back on the decoded revisions, as Helm's drivers do
// when they read them.
func (in *Inspector) UpgradeBase(ctx context.Context, ns, name string) (*UpgradeBase, error) {
	rows, err := in.c.History(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	ptrs := make([]*RevisionRow, len(rows))
	for i := range rows {
		ptrs[i] = &rows[i]
	}
	b := &UpgradeBase{Rows: rows}
	if err := in.c.FillDetails(ctx, ptrs); err != nil {
		b.SizesUnread = err.Error()
	}
	last := rows[len(rows)-1]
	if b.Last, err = in.upgradeRevision(ctx, last); err != nil {
		return nil, err
	}
	for i := len(rows) - 2; i >= 0; i-- {
		if rows[i].Status == release.StatusDeployed.String() && b.Last.Info.Status != release.StatusDeployed {
			if b.Deployed, err = in.upgradeRevision(ctx, rows[i]); err != nil {
				return nil, err
			}
			break
		}
	}
	if b.Capabilities, err = in.Capabilities(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// upgradeRevision decodes one revision for an upgrade to start from: a copy, so
// that the cached one is left as it was read, with the labels of its record's
// metadata when its payload holds none.
func (in *Inspector) upgradeRevision(ctx context.Context, row RevisionRow) (*release.Release, error) {
	rls, err := in.c.Decode(ctx, row)
	if err != nil {
		return nil, err
	}
	cp := *rls
	if cp.Labels == nil && len(row.Labels) > 0 {
		cp.Labels = maps.Clone(row.Labels)
	}
	return &cp, nil
}

// Capabilities returns the cluster's capabilities as Helm's actions discover
// them (action.Configuration's own discovery): the server's version and the
// API versions it serves. An API group the server cannot list (an orphaned
// APIService) is left out, as Helm leaves it out with a warning.
func (in *Inspector) Capabilities(ctx context.Context) (*chartutil.Capabilities, error) {
	dc := in.c.cs.Discovery()
	v, err := dc.ServerVersion()
	if err != nil {
		return nil, Explain(fmt.Errorf("read the server's version: %w", err), "get", "version", "")
	}
	apis, err := action.GetVersionSet(dc)
	if err != nil && len(apis) == 0 {
		return nil, Explain(fmt.Errorf("read the API versions the server serves: %w", err), "get", "discovery", "")
	}
	return &chartutil.Capabilities{
		APIVersions: apis,
		KubeVersion: chartutil.KubeVersion{Version: v.GitVersion, Major: v.Major, Minor: v.Minor},
		HelmVersion: chartutil.DefaultCapabilities.HelmVersion,
	}, nil
}
