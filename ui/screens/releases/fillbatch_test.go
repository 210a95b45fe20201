package releases

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// operatorFixture is the fixture plus n releases another tool wrote (no chunkview
// summary), of several chunks each: op-00, op-01...
func operatorFixture(t *testing.T, n int) *screentest.Fixture {
	t.Helper()
	f := screentest.NewFixture(t)
	drv := storage.NewDriver(f.Cluster.Clientset().CoreV1().Secrets("default"), storage.HelmOwner, screentest.Config().Driver)
	for i := range n {
		rls := screentest.SimpleRelease(fmt.Sprintf("op-%02d", i), "default", 1, release.StatusDeployed, 3*screentest.ChunkSize, screentest.Now.Add(-48*time.Hour))
		if err := drv.Create(storage.RecordKey(rls.Name, 1), rls); err != nil {
			t.Fatal(err)
		}
		f.StripAnnotations(t, "default", storage.RecordKey(rls.Name, 1), screentest.Now.Add(-48*time.Hour))
	}
	f.Cluster.ResetRequests()
	return f
}

// fillStats opens the release list on f in a w×h terminal and returns how many rows are on
// screen and how many of those were peeked, after checking every row on screen
// is filled, and without an error unless errOK names it.
func fillStats(t *testing.T, f *screentest.Fixture, w, h int, errOK string) (visible, peeked int, req map[string]int) {
	t.Helper()
	rs, hs := openOn(t, f.Client, w, h-3)
	visible = min(rs.tableHeight(), len(rs.Shown))
	checked := 0
	for _, idx := range rs.Shown[:visible] {
		it := rs.Items[idx]
		l := it.Row.Latest
		if !it.Filled || (it.Err != nil && l.Name != errOK) {
			t.Fatalf("row %s on screen not filled: %v", l.Name, it.Err)
		}
		if l.Peeked {
			peeked++
		}
		if l.Peeked && l.Checked {
			checked++
		}
	}
	if checked < peeked {
		t.Errorf("%d of %d peeked rows checked for missing chunks", checked, peeked)
	}
	hs.Contains("op-00")
	return visible, peeked, f.Cluster.Requests()
}

// TestReleaseListFillsInBatch: the rows on screen that another tool wrote (no
// chunkview summary) get their summaries from index Secrets read ten to a list,
// and every row on screen is checked for missing chunks with one list, where a
// row at a time took a GET and a list each. At 80x24 and 160x50.
func TestReleaseListFillsInBatch(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			visible, peeked, req := fillStats(t, operatorFixture(t, 24), size[0], size[1], "")
			t.Logf("%d rows on screen, %d peeked: %d lists, %d GETs", visible, peeked, req[fakeapi.VerbList], req[fakeapi.VerbGet])
			if peeked < 10 {
				t.Fatalf("%d rows on screen were peeked, want the screen's operator rows", peeked)
			}
			// The release listing, one list per ten peeked rows, one chunk check;
			// the fixture's own row without a summary ("old-tool") decodes, with
			// GETs of its index and chunks.
			if maxLists := 1 + (peeked+9)/10 + 1; req[fakeapi.VerbList] > maxLists {
				t.Errorf("%d lists for %d peeked rows on screen, want at most %d", req[fakeapi.VerbList], peeked, maxLists)
			}
			if req[fakeapi.VerbGet] >= peeked {
				t.Errorf("%d GETs for %d peeked rows: the index Secrets were read one by one", req[fakeapi.VerbGet], peeked)
			}
		})
	}
}

// TestReleaseListBatchFallsBack: when a batch's list of index Secrets fails, its
// rows are read one by one and all fill without an error.
func TestReleaseListBatchFallsBack(t *testing.T) {
	_, peeked, ok := fillStats(t, operatorFixture(t, 24), 80, 24, "")
	f := operatorFixture(t, 24)
	// The first list is the release listing; the second, one of index Secrets.
	f.Cluster.FailRequest(fakeapi.VerbList, 2, errors.New("boom"))
	_, peekedAfter, req := fillStats(t, f, 80, 24, "")
	if peekedAfter != peeked {
		t.Fatalf("%d rows peeked after a failed list, %d without", peekedAfter, peeked)
	}
	// Whichever batch failed holds at least peeked-10 rows (and at most ten).
	if extra := req[fakeapi.VerbGet] - ok[fakeapi.VerbGet]; extra < min(peeked-10, 10) {
		t.Errorf("%d GETs more after a batch's list failed: its rows were not read one by one", extra)
	}
}

// TestReleaseListBatchRecordGone: a record deleted between the listing and the
// batch's read shows its own error ("gone; refresh"); every other row fills.
func TestReleaseListBatchRecordGone(t *testing.T) {
	f := operatorFixture(t, 24)
	gone := storage.RecordKey("op-03", 1)
	var once sync.Once
	hook := func(opts metav1.ListOptions) {
		if strings.Contains(opts.LabelSelector, storage.LabelKey+" in") {
			once.Do(func() {
				if err := f.Cluster.Clientset().CoreV1().Secrets("default").Delete(context.Background(), gone, metav1.DeleteOptions{}); err != nil {
					t.Error(err)
				}
			})
		}
	}
	f.Client = kube.New(listHookClientset{f.Cluster.Clientset(), hook}, f.Cluster.Metadata(), demo.DiscardKubeClients, screentest.Config())
	rs, _ := openOn(t, f.Client, 80, 21)
	found := false
	for _, idx := range rs.Shown[:min(rs.tableHeight(), len(rs.Shown))] {
		it := rs.Items[idx]
		switch l := it.Row.Latest; {
		case l.Name == "op-03":
			found = true
			if it.Err == nil || !strings.Contains(it.Err.Error(), "gone; refresh") {
				t.Errorf("op-03, deleted meanwhile: error %v, want it gone", it.Err)
			}
		case !it.Filled || it.Err != nil:
			t.Errorf("row %s: filled %v, error %v", l.Name, it.Filled, it.Err)
		}
	}
	if !found {
		t.Fatal("op-03 is not on screen")
	}
}

// listHookClientset calls hook before each list of Secrets.
type listHookClientset struct {
	kubernetes.Interface
	hook func(metav1.ListOptions)
}

func (c listHookClientset) CoreV1() corev1client.CoreV1Interface {
	return listHookCore{c.Interface.CoreV1(), c.hook}
}

type listHookCore struct {
	corev1client.CoreV1Interface
	hook func(metav1.ListOptions)
}

func (c listHookCore) Secrets(ns string) corev1client.SecretInterface {
	return listHookSecrets{c.CoreV1Interface.Secrets(ns), c.hook}
}

type listHookSecrets struct {
	corev1client.SecretInterface
	hook func(metav1.ListOptions)
}

func (s listHookSecrets) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	s.hook(opts)
	return s.SecretInterface.List(ctx, opts)
}
