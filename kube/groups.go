package kube

import "sort"

// groupReleases groups revision rows by release (storage namespace and name) and
// keeps each one's latest revision and count.
func groupReleases(rows []RevisionRow, all bool) []ReleaseRow {
	g := releaseGroups{all: all}
	for _, row := range rows {
		g.add(row)
	}
	out := g.releases()
	sortReleases(out)
	return out
}

// releaseGroups groups revision rows by release as they come, keeping each
// release's latest revision and its count of revisions.
type releaseGroups struct {
	byRelease map[releaseID]int // index in rows
	rows      []ReleaseRow
	// all keeps every revision's row in its release's History.
	all bool
}

type releaseID struct{ ns, name string }

func (g *releaseGroups) add(row RevisionRow) {
	g.offer(row.StorageNamespace, row.Name, row.Revision, knownSize(row), func() RevisionRow { return row })
}

// offer counts revision rev of release name in storage namespace ns, of size
// stored bytes (0: not known), and keeps the row that row makes of it if it is
// the latest seen so far; row is not called otherwise.
func (g *releaseGroups) offer(ns, name string, rev int, size int64, row func() RevisionRow) {
	if g.byRelease == nil {
		g.byRelease = map[releaseID]int{}
	}
	k := releaseID{ns, name}
	i, ok := g.byRelease[k]
	if !ok {
		i = len(g.rows)
		g.byRelease[k] = i
		g.rows = append(g.rows, ReleaseRow{})
	}
	rr := &g.rows[i]
	rr.Revisions++
	rr.SetRevisionSize(rev, size)
	if g.all {
		r := row()
		rr.History = append(rr.History, r)
		if rev > rr.Latest.Revision {
			rr.Latest = r
		}
		return
	}
	if rev > rr.Latest.Revision {
		rr.Latest = row()
	}
}

// releases returns the releases in the order they were first seen, each one's
// History (when kept) oldest first.
func (g *releaseGroups) releases() []ReleaseRow {
	for i := range g.rows {
		h := g.rows[i].History
		sort.Slice(h, func(a, b int) bool { return h[a].Revision < h[b].Revision })
	}
	return g.rows
}

// sortReleases sorts releases by storage namespace and name.
func sortReleases(out []ReleaseRow) {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Latest, out[j].Latest
		if a.StorageNamespace != b.StorageNamespace {
			return a.StorageNamespace < b.StorageNamespace
		}
		return a.Name < b.Name
	})
}
