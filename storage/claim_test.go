package storage_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// plantLeftovers stores the chunks of rls under key as an interrupted write leaves
// them: chunk Secrets that no index names, without owner.
func plantLeftovers(t *testing.T, secrets corev1client.SecretInterface, k string, rls *release.Release, chunkSize int) []string {
	t.Helper()
	gz, _, err := storage.EncodePayload(rls)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range storage.Split(gz, chunkSize)[1:] {
		chunk := storage.ChunkSecret(testOwner, k, s, time.Now(), nil)
		if _, err := secrets.Create(context.Background(), chunk, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		names = append(names, chunk.Name)
	}
	return names
}

// TestClaimKeepsReusedChunk: a write reuses chunks left over by an interrupted write
// of the same content, while gc removes those very leftovers. Whatever the order —
// gc's delete before the write's claim, or gc deciding before the write and
// deleting after its claim — the record the write leaves reads, and nothing it
// names is missing. Before claims, gc's delete after the write's check left an
// index naming a missing chunk for good.
func TestClaimKeepsReusedChunk(t *testing.T) {
	const name = "claim"
	k := key(name, 1)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
	for _, op := range []string{"create", "update"} {
		for _, order := range []string{"gc-deletes-before-claim", "gc-deletes-after-claim", "gc-after-write"} {
			t.Run(op+"/"+order, func(t *testing.T) {
				_, secrets := newNamespace(t)
				clean := storage.NewDriver(secrets, testOwner, cfg)
				want := releaseOfChunks(t, name, 1, release.StatusSuperseded, 4, faultChunkSize, 2)
				if op == "update" {
					mustCreate(t, clean, releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1))
				}
				planted := plantLeftovers(t, secrets, k, want, faultChunkSize)
				// gc's first step: the leftovers and their versions.
				los, err := storage.FindLeftovers(t.Context(), secrets, testOwner, time.Nanosecond)
				if err != nil {
					t.Fatal(err)
				}
				if len(los) != len(planted) {
					t.Fatalf("gc found %d leftovers, want the %d planted", len(los), len(planted))
				}
				writeIndex := map[string]string{"create": "create", "update": "update"}[op]
				wfc := newFaultClient(secrets)
				w := storage.NewDriver(wfc, testOwner, cfg)
				write := func() error {
					if op == "create" {
						return w.Create(k, want)
					}
					return w.Update(k, want)
				}
				removed := 0
				gc := func(c corev1client.SecretInterface) {
					n, err := storage.RemoveLeftovers(t.Context(), c, los)
					if err != nil {
						t.Errorf("gc: %v", err)
					}
					removed += n
				}
				switch order {
				case "gc-deletes-before-claim":
					// The write has found the leftovers and reused them; gc removes
					// them just before the index that names them is written.
					wfc.hook = onceBefore(writeIndex, k, func() { gc(secrets) })
					if err := write(); err != nil {
						t.Fatal(err)
					}
					if removed == 0 {
						t.Fatal("gc removed nothing: the interleaving was not reached")
					}
				case "gc-deletes-after-claim":
					// gc has checked the index (it does not name them yet) and is
					// about to delete; the whole write, claim included, runs first.
					gfc := newFaultClient(secrets)
					gfc.hook = onceBefore("delete", planted[0], func() {
						if err := write(); err != nil {
							t.Errorf("write: %v", err)
						}
					})
					gc(gfc)
					if removed != 0 {
						t.Fatalf("gc removed %d chunks a write had claimed", removed)
					}
				case "gc-after-write":
					if err := write(); err != nil {
						t.Fatal(err)
					}
					gc(secrets)
					if removed != 0 {
						t.Fatalf("gc removed %d chunks an index names", removed)
					}
				}
				got, err := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ReadRetry: -1}).Get(k)
				if err != nil {
					t.Fatalf("the record the write left does not read: %v", err)
				}
				mustBeOneOf(t, got, want)
				mustAllReadable(t, secrets, testOwner)
				mustAllOwned(t, secrets, k)
				mustRemoveLeftovers(t, secrets, testOwner)
				mustHoldOnly(t, secrets, k)
			})
		}
	}
}
