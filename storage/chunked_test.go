package storage_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/storage"
)

func TestRoundTripChunks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload int
		chunks  int
	}{
		{"one", 10 << 10, 1},
		{"three", 2*64<<10 + 20<<10, 3},
		{"eleven", 10*64<<10 + 20<<10, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := cluster.Namespace(t)
			secrets := cluster.Client.CoreV1().Secrets(ns)
			d := storage.NewChunkedSecrets(secrets, "test-owner", storage.ChunkedSecretsConfig{ChunkSize: 64 << 10})
			rls := testRelease("rt-"+tc.name, 1, release.StatusDeployed, tc.payload)
			if err := d.Create(key(rls.Name, 1), rls); err != nil {
				t.Fatal(err)
			}
			got, err := d.Get(key(rls.Name, 1))
			if err != nil {
				t.Fatal(err)
			}
			mustEqualRelease(t, rls, got)
			list, err := secrets.List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Items) != tc.chunks {
				t.Fatalf("stored %d Secrets, want %d", len(list.Items), tc.chunks)
			}
		})
	}
}
