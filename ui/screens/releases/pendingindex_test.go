package releases

import (
	"context"
	"errors"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/release"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// lostConnection is a Secrets client whose connection goes once a create has
// written its Secrets: the update that completes the record fails, and so does
// every delete that would clean up.
type lostConnection struct{ corev1client.SecretInterface }

var errLost = errors.New("connection lost")

func (lostConnection) Update(context.Context, *corev1.Secret, metav1.UpdateOptions) (*corev1.Secret, error) {
	return nil, errLost
}
func (lostConnection) Delete(context.Context, string, metav1.DeleteOptions) error { return errLost }
func (lostConnection) DeleteCollection(context.Context, metav1.DeleteOptions, metav1.ListOptions) error {
	return errLost
}

// TestPendingIndexBlocksRow: the release list shows a release whose next
// revision's create was cut off (its pending index left behind, an hour ago) as
// blocked, and says on the selected row what that does and what removes it, at
// 80x24 and 160x45.
func TestPendingIndexBlocksRow(t *testing.T) {
	f := screentest.NewFixture(t)
	secrets := f.Cluster.Clientset().CoreV1().Secrets("default")
	drv := storage.NewDriver(secrets, "helm", storage.ChunkedSecretsConfig{ChunkSize: screentest.ChunkSize})
	rls, err := drv.Get(storage.RecordKey("web", 4))
	if err != nil {
		t.Fatal(err)
	}
	rls.Version, rls.Info.Status = 5, release.StatusPendingRollback
	cut := storage.NewDriver(lostConnection{secrets}, "helm", storage.ChunkedSecretsConfig{ChunkSize: screentest.ChunkSize})
	if err := cut.Create(storage.RecordKey("web", 5), rls); !errors.Is(err, errLost) {
		t.Fatalf("the cut-off create: %v", err)
	}
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		s, h := openOn(t, f.Client, size[0], size[1]-3)
		var webRow string
		for _, l := range strings.Split(h.View(), "\n") {
			if strings.Contains(l, " web ") {
				webRow = l
			}
		}
		if !strings.Contains(webRow, "⚠ blocked") {
			t.Errorf("%dx%d: web's row does not say blocked:\n%s", size[0], size[1], h.View())
		}
		for _, l := range strings.Split(h.View(), "\n") {
			if strings.Contains(l, "blocked") && !strings.Contains(l, " web ") {
				t.Errorf("%dx%d: another row is blocked: %q", size[0], size[1], l)
			}
		}
		h.Press("down", "down") // web, after legacy and old-tool
		for s.Selected().Row.Latest.Name != "web" {
			h.Press("down")
		}
		h.Contains("⚠ web revision 5 was never written", "chunkview gc -n default removes it")
	}
}
