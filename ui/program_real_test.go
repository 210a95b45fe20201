package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/storage"
)

// TestProgramOnRealServer runs the whole program against a real API server and
// etcd, connected from a kubeconfig as chunkview's main connects: Helm installs
// a release through chunkview's driver and upgrades it; the list shows it, its
// history opens, and a rollback through the rollback screen's question is applied
// by Helm's action: the release's ConfigMap is back to revision 1's values on
// the server, and the history shows revision 3 deployed.
func TestProgramOnRealServer(t *testing.T) {
	ns := cluster.Namespace(t)
	kc := kubetest.AdminKubeconfig(t, ns)
	drv := storage.NewDriver(cluster.Client.CoreV1().Secrets(ns), "helm", storage.ChunkedSecretsConfig{ChunkSize: 16 << 10})
	hc := kubetest.HelmConfig(t, kc, ns, drv)
	kubetest.HelmInstall(t, hc, ns, "shop", kubetest.WebappValues("shop", 0, 30_000))
	kubetest.HelmUpgrade(t, hc, ns, "shop", "1.1.0", kubetest.WebappValues("shop", 1, 30_000))
	if got := kubetest.ConfigMapData(t, ns, "shop-config")["color"]; got != "green" {
		t.Fatalf("shop-config color %q after the upgrade, want green", got)
	}
	client := kubetest.Connect(t, kc, []string{"-n", ns, "--driver", "chunked", "--chunk-size", "16384"}, nil)

	opts := Options{Watch: true, ContextName: "envtest"}
	m := newModel(newCommon(context.Background(), client, opts), opts)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	out := &screenReader{r: tm.Output()}
	waitFor := func(what ...string) {
		t.Helper()
		if err := waitOutput(out, what, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		out.reset()
	}
	press := func(k string) { tm.Send(keyMsg(k)) }

	waitFor("shop", "● LIVE")
	press("enter")
	waitFor("Upgrade complete", "Install complete")
	press("up")
	press("R")
	waitFor("Roll back shop from revision 2 to revision 1?")
	press("ctrl+r")
	waitFor("revision 3 created")
	press("esc")
	waitFor("Rollback to 1")
	press("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*model)
	if scr := plainScreen(final.render()); !strings.Contains(scr, "    3 ✓ deployed") || !strings.Contains(scr, " › shop") {
		t.Fatalf("after the rollback the screen is not the history with revision 3 deployed:\n%s", scr)
	}
	if got := kubetest.ConfigMapData(t, ns, "shop-config")["color"]; got != "blue" {
		t.Errorf("shop-config color %q on the server after the rollback to 1, want blue", got)
	}
	rows, err := client.History(t.Context(), ns, "shop")
	if err != nil || len(rows) != 3 || rows[1].Status != "superseded" {
		t.Fatalf("history on the server: %+v, %v", rows, err)
	}
	if _, err := cluster.Client.CoreV1().Secrets(ns).Get(t.Context(), storage.RecordKey("shop", 3), metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
}
