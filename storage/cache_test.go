package storage_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// cacheClient forwards to a real Secret client, but lets a test answer the reads
// that ask for the API server's cached copy (resourceVersion "0"), as a watch cache
// that lags behind etcd or holds an older object would. It counts both kinds of Get.
type cacheClient struct {
	corev1client.SecretInterface
	// cached answers a cached read; returning (nil, nil) forwards it to the server.
	cached func(name string) (*corev1.Secret, error)

	mu             sync.Mutex
	cachedByName   map[string]int
	quorumByName   map[string]int
	cachedRequests int
	quorumRequests int
}

func (c *cacheClient) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error) {
	c.mu.Lock()
	if opts.ResourceVersion == "0" {
		c.cachedRequests++
		c.cachedByName[name]++
	} else {
		c.quorumRequests++
		c.quorumByName[name]++
	}
	c.mu.Unlock()
	if opts.ResourceVersion == "0" && c.cached != nil {
		if s, err := c.cached(name); s != nil || err != nil {
			return s, err
		}
	}
	return c.SecretInterface.Get(ctx, name, opts)
}

func (c *cacheClient) counts() (cached, quorum int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cachedRequests, c.quorumRequests
}

func (c *cacheClient) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cachedRequests, c.quorumRequests = 0, 0
	c.cachedByName, c.quorumByName = map[string]int{}, map[string]int{}
}

// TestCachedChunkReads: chunks are read from the API server's watch cache, the index
// from etcd; a chunk the cache lacks, or holds in a form that fails its checks, or
// whose cached read fails, is read again from etcd, and that read decides.
func TestCachedChunkReads(t *testing.T) {
	const chunkSize = 1 << 10
	const chunks = 5
	_, secrets := newNamespace(t)
	rls := releaseOfChunks(t, "cached", 1, release.StatusDeployed, chunks, chunkSize, 1)
	k := key("cached", 1)
	mustCreate(t, storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize}), rls)
	waitForCache(t, secrets)
	var chunkNames []string
	for _, n := range recordNames(t, secrets, k) {
		if n != k {
			chunkNames = append(chunkNames, n)
		}
	}
	if len(chunkNames) != chunks-1 {
		t.Fatalf("record has %d chunk Secrets, want %d", len(chunkNames), chunks-1)
	}
	tampered := func(name string) *corev1.Secret {
		s, err := secrets.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Data[storage.DataChunk] = append([]byte("stale "), s.Data[storage.DataChunk]...)
		return s
	}
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, "x")

	cases := []struct {
		name string
		// cached answers the cached read of chunk name (nil, nil: the real cache).
		cached     func(name string) (*corev1.Secret, error)
		wantQuorum int // Gets that went to etcd, the index's included
	}{
		{"cache holds every chunk", nil, 1},
		{"cache has not seen the chunks yet", func(string) (*corev1.Secret, error) { return nil, notFound }, chunks},
		{"cache holds a copy that fails the hash", func(name string) (*corev1.Secret, error) { return tampered(name), nil }, chunks},
		{"cached read fails", func(string) (*corev1.Secret, error) {
			return nil, apierrors.NewInternalError(errors.New("injected"))
		}, chunks},
		{"cache lags for one chunk", func(name string) (*corev1.Secret, error) {
			if name == chunkNames[1] {
				return nil, notFound
			}
			return nil, nil
		}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &cacheClient{SecretInterface: secrets, cached: tc.cached}
			c.reset()
			d := storage.NewDriver(c, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
			got, err := d.Get(k)
			if err != nil {
				t.Fatal(err)
			}
			mustEqualRelease(t, rls, got)
			cached, quorum := c.counts()
			if cached != chunks-1 || quorum != tc.wantQuorum {
				t.Errorf("cached reads %d, reads from etcd %d; want %d and %d (by name: cached %v, etcd %v)",
					cached, quorum, chunks-1, tc.wantQuorum, c.cachedByName, c.quorumByName)
			}
			if c.quorumByName[k] != 1 || c.cachedByName[k] != 0 {
				t.Errorf("index read %d times from etcd and %d from the cache, want once from etcd", c.quorumByName[k], c.cachedByName[k])
			}
		})
	}

	// What etcd holds decides when the cached copy fails: a chunk altered in etcd
	// is reported as corrupt, with the etcd copy's hash.
	t.Run("cache and etcd both fail the hash", func(t *testing.T) {
		c := &cacheClient{SecretInterface: secrets, cached: func(name string) (*corev1.Secret, error) { return tampered(name), nil }}
		c.reset()
		d := storage.NewDriver(c, testOwner, storage.ChunkedSecretsConfig{ChunkSize: chunkSize})
		victim := chunkNames[2]
		bad := tampered(victim)
		if err := secrets.Delete(context.Background(), victim, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		bad.ResourceVersion, bad.UID = "", ""
		if _, err := secrets.Create(context.Background(), bad, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := d.Get(k)
		if !errors.Is(err, storage.ErrCorrupt) {
			t.Fatalf("Get of a record whose chunk is altered in etcd = %v, want ErrCorrupt", err)
		}
		t.Logf("error: %v", err)
	})
}
