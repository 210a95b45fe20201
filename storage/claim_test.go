package storage_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

// plantLeftovers stores the chunks of rls under key as an interrupted write leaves
// them: chunk Secrets that no index names, without owner.
func plantLeftovers(t *testing.T, secrets corev1client.SecretInterface, k string, d chunkedDriver, rls *release.Release, chunkSize int) []string {
	t.Helper()
	gz, err := d.Payload(rls)
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
func TestClaimKeepsReusedChunk(t *testing.T) { forEachAdapter(t, testClaimKeepsReusedChunk) }

func testClaimKeepsReusedChunk(t *testing.T, ad chunkedAdapter) {
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
				wfc := newFaultClient(secrets)
				w := ad.new(wfc, testOwner, cfg)
				planted := plantLeftovers(t, secrets, k, w, want, faultChunkSize)
				// gc's first step: the leftovers and their versions.
				los, err := storage.FindLeftovers(t.Context(), secrets, testOwner, time.Nanosecond)
				if err != nil {
					t.Fatal(err)
				}
				if len(los) != len(planted) {
					t.Fatalf("gc found %d leftovers, want the %d planted", len(los), len(planted))
				}
				writeIndex := map[string]string{"create": "create", "update": "update"}[op]
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

// TestClaimChainOfReuses: chunks left over by an interrupted write of the same
// record, owned by its index; gc decides to remove them; writer B reuses them and is
// about to claim them when writer A updates from B's index, reusing them again
// (named by its old index, and owned by it); gc deletes; B's claim finds them gone
// and does not write them again, since the index is A's now. A must have claimed
// them itself: a write claims every chunk it reuses.
func TestClaimChainOfReuses(t *testing.T) {
	const name = "chain"
	k := key(name, 1)
	cfg := storage.ChunkedSecretsConfig{ChunkSize: faultChunkSize}
	_, secrets := newNamespace(t)
	clean := storage.NewDriver(secrets, testOwner, cfg)
	mustCreate(t, clean, releaseOfChunks(t, name, 1, release.StatusDeployed, 3, faultChunkSize, 1))
	want := releaseOfChunks(t, name, 1, release.StatusSuperseded, 4, faultChunkSize, 2)

	idx, err := secrets.Get(context.Background(), k, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "Secret", Name: k, UID: idx.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false)}
	gz, _, _ := storage.EncodePayload(want)
	var planted []string
	for _, s := range storage.Split(gz, faultChunkSize)[1:] {
		ch := storage.ChunkSecret(testOwner, k, s, time.Now(), &ref)
		if _, err := secrets.Create(context.Background(), ch, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		planted = append(planted, ch.Name)
	}
	los, err := storage.FindLeftovers(t.Context(), secrets, testOwner, time.Nanosecond)
	if err != nil || len(los) != len(planted) {
		t.Fatalf("leftovers %d (%v)", len(los), err)
	}
	var lo0 []storage.Leftover
	for _, lo := range los {
		if lo.Name == planted[0] {
			lo0 = append(lo0, lo)
		}
	}

	// gc: checks the index (I0 does not name planted[0]) and then waits before its delete.
	checked, goOn, done := make(chan struct{}), make(chan struct{}), make(chan int)
	gfc := newFaultClient(secrets)
	gfc.hook = onceBefore("delete", planted[0], func() { close(checked); <-goOn })
	go func() {
		n, err := storage.RemoveLeftovers(context.Background(), gfc, lo0)
		if err != nil {
			t.Errorf("gc: %v", err)
		}
		done <- n
	}()
	<-checked

	bfc := newFaultClient(secrets)
	b := storage.NewDriver(bfc, testOwner, cfg)
	removed := 0
	bfc.hook = onceBefore("patch", planted[0], func() {
		// B has written I1 and is about to claim planted[0]. A updates from I1.
		time.Sleep(1100 * time.Millisecond) // so A's modifiedAt differs from B's
		a := storage.NewDriver(secrets, testOwner, cfg)
		if err := a.Update(k, want); err != nil {
			t.Errorf("A: %v", err)
		}
		close(goOn)
		removed = <-done
	})
	if err := b.Update(k, want); err != nil {
		t.Fatal(err)
	}
	t.Logf("gc removed %d", removed)
	if _, err := storage.NewDriver(secrets, testOwner, storage.ChunkedSecretsConfig{ReadRetry: -1}).Get(k); err != nil {
		t.Fatalf("the record A wrote does not read: %v", err)
	}
}
