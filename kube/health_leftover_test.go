package kube_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// TestLeftoverDoesNotMaskMissing: a named chunk is missing while a leftover chunk
// of the same key (an interrupted write's) is there. Counting chunks by their key
// would call the revision healthy; it is broken, as verify says.
func TestLeftoverDoesNotMaskMissing(t *testing.T) {
	ctx := t.Context()
	ns := cluster.Namespace(t)
	cv := storage.NewDriver(secrets(ns), healthOwner, storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	seed(t, cv, history("lost", ns, 1, 40_000)...)
	key := storage.RecordKey("lost", 1)
	backdate(t, ns, key)
	s := takeChunk(t, ns, key)
	s.Name = key + "-leftover0000"
	s.ResourceVersion, s.UID = "", ""
	if _, err := secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := connect(t, adminKubeconfig(t, ns), []string{"-n", ns, "--owner", healthOwner}, nil)
	row := healthRows(t, c)["lost"]
	if err := kube.NewChecker(c).CheckHealth(ctx, []*kube.RevisionRow{row}); err != nil {
		t.Fatal(err)
	}
	if !row.Broken || !strings.Contains(row.Problem, "missing") {
		t.Fatalf("health: broken=%v problem=%q checked=%v, want broken with a chunk missing", row.Broken, row.Problem, row.Checked)
	}
}
