package kube

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/chunkview/chunkview/kube/internal/paging"
)

// TestReleaseGroupsPageByPage: grouping revisions page by page as they arrive,
// restarting when a continue token expires, gives the releases grouping the
// whole listing gives: each release's latest revision and its count, once.
func TestReleaseGroupsPageByPage(t *testing.T) {
	row := func(ns, name string, rev int) RevisionRow {
		return RevisionRow{StorageNamespace: ns, Name: name, Revision: rev, Key: fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, rev)}
	}
	pages := [][]RevisionRow{
		{row("a", "web", 1), row("a", "web", 3), row("b", "web", 1)},
		{row("a", "db", 2), row("a", "web", 2), row("a", "db", 1)},
		{row("b", "web", 4), row("a", "api", 1)},
	}
	var all []RevisionRow
	for _, p := range pages {
		all = append(all, p...)
	}
	want := groupReleases(all, false)
	if len(want) != 4 || want[0].Latest.Name != "api" || want[2].Latest.Revision != 3 || want[2].Revisions != 3 || want[3].Latest.Revision != 4 {
		t.Fatalf("groupReleases: %+v", want)
	}
	for _, expire := range [][]int{nil, {2}, {3}, {2, 3}} {
		t.Run(fmt.Sprint("expired calls ", expire), func(t *testing.T) {
			calls := 0
			page := func(_ context.Context, cont string) ([]RevisionRow, string, error) {
				calls++
				for _, n := range expire {
					if n == calls {
						return nil, "", apierrors.NewResourceExpired("too old")
					}
				}
				i := 0
				if cont != "" {
					i = int(cont[0] - '0')
				}
				next := ""
				if i+1 < len(pages) {
					next = fmt.Sprint(i + 1)
				}
				return pages[i], next, nil
			}
			var g releaseGroups
			err := paging.Each(context.Background(), page, func() { g = releaseGroups{} }, func(rows []RevisionRow) {
				for _, r := range rows {
					g.add(r)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			got := g.releases()
			sortReleases(got)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("page by page:\n%+v\nwhole:\n%+v", got, want)
			}
		})
	}
}
