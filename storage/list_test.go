package storage_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// expiringLists pages every list two items at a time and answers 410 Gone (the
// continue token expired, as after an etcd compaction) to the first expire
// continued requests.
type expiringLists struct {
	corev1client.SecretInterface
	mu      sync.Mutex
	expire  int
	expired int
	lists   int
}

func (e *expiringLists) List(ctx context.Context, opts metav1.ListOptions) (*corev1.SecretList, error) {
	e.mu.Lock()
	e.lists++
	if opts.Continue != "" && e.expired < e.expire {
		e.expired++
		e.mu.Unlock()
		return nil, apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result.")
	}
	e.mu.Unlock()
	opts.Limit = 2
	return e.SecretInterface.List(ctx, opts)
}

// TestListRestartsOnExpiredContinue: a list whose continue token expires starts
// over and still returns every release exactly once; one that keeps expiring fails
// with the server's error rather than returning part of the list.
func TestListRestartsOnExpiredContinue(t *testing.T) {
	forEachAdapter(t, testListRestartsOnExpiredContinue)
}

func testListRestartsOnExpiredContinue(t *testing.T, ad chunkedAdapter) {
	_, secrets := newNamespace(t)
	d := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{})
	var want []string
	for rev := 1; rev <= 7; rev++ {
		rls := testRelease("paged", rev, release.StatusSuperseded, 100)
		mustCreate(t, d, rls)
		want = append(want, key("paged", rev))
	}
	for _, expire := range []int{1, 3} {
		e := &expiringLists{SecretInterface: secrets, expire: expire}
		got, err := ad.new(e, testOwner, storage.ChunkedSecretsConfig{}).List(nil)
		if err != nil {
			t.Fatalf("list with %d expired continue tokens: %v", expire, err)
		}
		var keys []string
		for _, r := range got {
			keys = append(keys, key(r.Name, r.Version))
		}
		sort.Strings(keys)
		if len(keys) != len(want) || keys[0] != want[0] || keys[len(keys)-1] != want[len(want)-1] {
			t.Fatalf("list with %d expired continue tokens returned %v, want %v", expire, keys, want)
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if seen[k] {
				t.Fatalf("list returned %s twice", k)
			}
			seen[k] = true
		}
		if e.expired != expire {
			t.Fatalf("%d continue tokens expired, want %d: the list was not paged", e.expired, expire)
		}
		rep, err := storage.Verify(t.Context(), &expiringLists{SecretInterface: secrets, expire: expire}, testOwner, storage.VerifyOptions{MinAge: time.Hour})
		if err != nil {
			t.Fatalf("verify with %d expired continue tokens: %v", expire, err)
		}
		if rep.Indexes != len(want) {
			t.Fatalf("verify saw %d indexes, want %d", rep.Indexes, len(want))
		}
	}
	e := &expiringLists{SecretInterface: secrets, expire: 100}
	if _, err := ad.new(e, testOwner, storage.ChunkedSecretsConfig{}).List(nil); !apierrors.IsResourceExpired(err) {
		t.Fatalf("a list whose continue token always expires: %v, want the 410 error", err)
	}
}
