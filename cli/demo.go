package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/kube"
)

// demoClient returns a client over a fresh in-memory demo cluster seeded with the
// sample releases. The demo's cluster holds release records only, so Helm's kube
// client applies nothing there. Without -n it looks at every namespace; the storage
// flags apply as on a cluster (--profile olmv1 shows the OLMv1 samples), except that
// the chunk limits default to those the samples were written with. A simulated
// operator upgrades podinfo every 15-20 s (CHUNKVIEW_DEMO_OPERATOR=2s or off
// changes that).
func (r *run) demoClient(ctx context.Context) (*kube.Client, error) {
	cfg, err := r.opts.Resolve()
	if err != nil {
		return nil, err
	}
	dc := demo.DriverConfig()
	if !r.flags.Changed("chunk-size") {
		cfg.Driver.ChunkSize = dc.ChunkSize
	}
	if !r.flags.Changed("max-read-chunks") {
		cfg.Driver.MaxReadChunks = dc.MaxReadChunks
	}
	if !r.flags.Changed("max-write-chunks") {
		cfg.Driver.MaxWriteChunks = dc.MaxWriteChunks
	}
	if ns := r.opts.Flags.Namespace; ns != nil && *ns != "" {
		cfg.Namespace = *ns
	} else {
		cfg.AllNamespaces = true
	}
	opOpts, operate, err := demo.ParseOperatorEnv(os.Getenv(demo.OperatorEnv))
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	cluster := demo.NewCluster()
	if _, err := demo.Seed(ctx, cluster, demo.SeedOptions{}); err != nil {
		return nil, fmt.Errorf("start the demo cluster: %w", err)
	}
	if operate {
		// A simulated operator keeps upgrading podinfo, so that the live view
		// has something to show; it ends with the command.
		go demo.RunOperator(ctx, cluster, opOpts)
	}
	return kube.New(cluster.Clientset(), cluster.Metadata(), kube.DiscardKubeClients, cfg), nil
}
