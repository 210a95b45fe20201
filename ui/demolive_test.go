package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/internal/screentest"
)

// TestProgramDemoStuckRollout runs the whole program at 80x24 on the demo's
// cluster as --demo builds it, live objects included, with the release whose
// rollout is stuck: from the list, s opens the resources view, which reads the
// objects and shows the Deployment InProgress, as kstatus judges it, among
// objects that are Current, then follows them live (the watches the demo's
// dynamic and metadata clients serve).
func TestProgramDemoStuckRollout(t *testing.T) {
	c := fakeapi.NewCluster()
	if _, err := demo.Seed(t.Context(), c, demo.SeedOptions{Only: []string{demo.StuckRelease}}); err != nil {
		t.Fatal(err)
	}
	cfg := screentest.Config()
	cfg.AllNamespaces, cfg.Namespace, cfg.Demo = true, "", true
	cfg.Drivers = kube.AllDrivers
	client := kube.New(c.Clientset(), c.Metadata(), demo.DiscardKubeClients, cfg).
		WithLive(c.Dynamic(), func() (*kube.LiveClients, error) {
			return kube.NewLiveClients(c.Dynamic(), c.Metadata(), c.Clientset().Discovery()), nil
		})
	opts := Options{Demo: true}
	m := newModel(newCommon(context.Background(), client, opts), opts)
	// The watch's updates arrive through the program's Send, as Run wires it.
	var tm *teatest.TestModel
	m.send = func(msg tea.Msg) { tm.Send(msg) }
	tm = teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))

	out := &screenReader{r: tm.Output()}
	waitFor := func(what ...string) {
		t.Helper()
		if err := waitOutput(out, what, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		out.reset()
	}
	waitFor(demo.StuckRelease)
	tm.Send(keyMsg("s"))
	waitFor("InProgress", "following live")
	tm.Send(keyMsg("q"))

	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*model)
	scr := plainScreen(final.render())
	var deployment string
	for _, line := range strings.Split(scr, "\n") {
		if strings.Contains(line, "Deployment") {
			deployment = line
		}
	}
	if !strings.Contains(deployment, "InProgress") || !strings.Contains(scr, "Current") || !strings.Contains(scr, "following live") {
		t.Fatalf("the resources view does not show the stuck Deployment InProgress beside Current objects:\n%s", scr)
	}
	t.Logf("80x24:\n%s", scr)
}
