package ui

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestReleaseListFillsInBatch: the rows on screen that another tool wrote (no
// chunkview summary) get their summaries from index Secrets read ten to a list,
// and every row on screen is checked for missing chunks with one list, where a
// row at a time took a GET and a list each. Rows the batch cannot fill alone
// (a record gone meanwhile) are filled on their own, with their own error. At
// 80x24 and 160x50.
func TestReleaseListFillsInBatch(t *testing.T) {
	baseGets := -1
	for _, tc := range []struct {
		size [2]int
		// failList fails the list of that number (the first is the release
		// listing, the second one of index Secrets): the rows of that batch are
		// filled one by one, without an error of their own.
		failList int
	}{{size: [2]int{80, 24}}, {size: [2]int{160, 50}}, {size: [2]int{80, 24}, failList: 2}} {
		size := tc.size
		t.Run(fmt.Sprintf("%dx%d/fail-list-%d", size[0], size[1], tc.failList), func(t *testing.T) {
			f := newFixture(t)
			drv := storage.NewDriver(f.cluster.Clientset().CoreV1().Secrets("default"), kube.DefaultOwner, testConfig().Driver)
			const n = 24
			for i := range n {
				rls := simpleRelease(fmt.Sprintf("op-%02d", i), "default", 1, release.StatusDeployed, 3*fixtureChunkSize, testNow.Add(-48*time.Hour))
				if err := drv.Create(storage.RecordKey(rls.Name, 1), rls); err != nil {
					t.Fatal(err)
				}
				f.stripAnnotations(t, "default", storage.RecordKey(rls.Name, 1), testNow.Add(-48*time.Hour))
			}
			f.cluster.ResetRequests()
			if tc.failList > 0 {
				f.cluster.FailRequest(fakeapi.VerbList, tc.failList, errors.New("boom"))
			}
			h := newHarness(t, f.client, Options{}, size[0], size[1])
			rs := h.top().(*releasesScreen)
			visible := min(rs.tableHeight(), len(rs.shown))
			peeked, checked := 0, 0
			for _, idx := range rs.shown[:visible] {
				it := rs.items[idx]
				if !it.filled || it.err != nil {
					t.Fatalf("row %s on screen not filled: %v", it.row.Latest.Name, it.err)
				}
				l := it.row.Latest
				if l.Peeked {
					peeked++
				}
				if l.Checked {
					checked++
				}
			}
			if peeked < 5 {
				t.Fatalf("%d rows on screen were peeked, want the screen's operator rows", peeked)
			}
			req := f.cluster.Requests()
			// The release listing, one list per ten peeked rows, one chunk check;
			// the fixture's own rows without a summary ("old-tool") decode, which
			// is a GET of its index and chunks.
			maxLists := 1 + (peeked+9)/10 + 1
			switch {
			case tc.failList == 0 && req[fakeapi.VerbList] > maxLists:
				t.Errorf("%d lists for %d peeked rows on screen, want at most %d", req[fakeapi.VerbList], peeked, maxLists)
			case tc.failList == 0 && req[fakeapi.VerbGet] >= peeked:
				t.Errorf("%d GETs for %d peeked rows: the index Secrets were read one by one", req[fakeapi.VerbGet], peeked)
			case tc.failList > 0 && (baseGets < 0 || req[fakeapi.VerbGet] < baseGets+5):
				// Batches are of ten rows and five here: whichever failed, five
				// rows at least were read one by one.
				t.Errorf("%d GETs after a batch's list failed, %d without: its rows were not read one by one", req[fakeapi.VerbGet], baseGets)
			}
			if tc.failList == 0 && size == [2]int{80, 24} {
				baseGets = req[fakeapi.VerbGet]
			}
			if checked < peeked {
				t.Errorf("%d of %d peeked rows checked for missing chunks", checked, peeked)
			}
			t.Logf("%d rows on screen, %d peeked: %d lists, %d GETs", visible, peeked, req[fakeapi.VerbList], req[fakeapi.VerbGet])
			h.contains("op-00")
		})
	}
}
