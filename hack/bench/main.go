// Command bench measures chunkview at fleet scale, side by side with what people use
// today: Helm's own Secrets driver and helm-operator-plugins v0.9.1's chunked driver.
//
// It starts a real API server and etcd (the envtest binaries in bin/), seeds the same
// releases through chunkview's driver and through Helm's (for the releases that fit
// there), then measures listing, history, reading and writing a large revision,
// storage, and the TUI's first screens. Each listing and history runs in its own
// process so that its peak memory is its own: the chunkview binary itself (with
// CHUNKVIEW_STATS=1, which makes it print its request count at exit), and this
// program re-executed in a child mode for the peers.
//
//	go run ./hack/bench              # full scale (make bench); writes BENCHMARKS.md
//	go run ./hack/bench -fleet large # ten times the revisions (make bench-large); writes its section of BENCHMARKS.md
//	go run ./hack/bench -reconcile   # OLMv1's steady-state reconcile per read path (make bench-reconcile); writes its section
//	go run ./hack/bench -reconcile -olm-fleet 2,1 -runs 1 -out -   # a small try, the tables printed only
//	go run ./hack/bench -scale 0.1   # a tenth of the fleet, prints the tables only
//	go run ./hack/bench -serve -kubeconfig-out /tmp/fleet.kubeconfig   # seed, then wait
//	go run ./hack/bench -kubeconfig /tmp/fleet.kubeconfig              # reuse that cluster
//	CHUNKVIEW_CPUPROFILE=/tmp/tui go run ./hack/bench -skip list,helmlist,history,rw,storage
//	                                 # the TUI only, a CPU profile of each key in /tmp/tui.KEY.PID.prof
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

type options struct {
	fleet      string
	scale      float64
	seed       uint64
	runs       int
	writers    int
	out        string
	kubeconfig string
	serve      bool
	kcOut      string
	binary     string
	skip       string
	reconcile  bool
	olmFleet   string
	paths      string
}

func main() {
	var o options
	var ca childArgs
	// Not the global flag set: controller-runtime registers -kubeconfig there.
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	fs.StringVar(&o.fleet, "fleet", "small", "the fleet: small (200 releases of 10 revisions, about 400 MB) or large (2,000 releases of 10 revisions, about 1.3 GB, and no Helm copy)")
	fs.Float64Var(&o.scale, "scale", 1, "fraction of the fleet to seed")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the fleet generator")
	fs.IntVar(&o.runs, "runs", 3, "runs of each measurement; the median is reported")
	fs.IntVar(&o.writers, "writers", 8, "concurrent writers when seeding")
	fs.StringVar(&o.out, "out", "", `report file (default BENCHMARKS.md at full scale, none otherwise; "-" for none)`)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "use the cluster of this kubeconfig instead of starting one (seeded only if it lacks the fleet)")
	fs.BoolVar(&o.serve, "serve", false, "start a cluster, seed it, write its kubeconfig (-kubeconfig-out) and wait for Ctrl-C")
	fs.StringVar(&o.kcOut, "kubeconfig-out", "", "with -serve: where to write the kubeconfig")
	fs.StringVar(&o.binary, "chunkview", "", "chunkview binary to measure (default: go build from the current module)")
	fs.StringVar(&o.skip, "skip", "", "comma-separated sections to skip: list,helmlist,apis,history,rw,storage,tui")
	fs.BoolVar(&o.reconcile, "reconcile", false, "measure OLMv1's steady-state reconcile over an OLMv1-shaped fleet, per read path (make bench-reconcile); writes its section of BENCHMARKS.md")
	fs.StringVar(&o.olmFleet, "olm-fleet", "30,10", "with -reconcile: the fleet's small (1 chunk) and large (3 to 6 chunks) extensions")
	fs.StringVar(&o.paths, "paths", "", "with -reconcile: the read paths to measure, comma-separated (default all: original-live,chunkview-live,chunkview-cache,chunkview-releasecache,chunkview-releasecache-slices,chunkview-releasecache-all)")
	fs.StringVar(&ca.Mode, "child", "", "internal: run one measured operation")
	fs.StringVar(&ca.Kubeconfig, "child-kubeconfig", "", "internal")
	fs.StringVar(&ca.Namespace, "child-namespace", "", "internal")
	fs.StringVar(&ca.Namespaces, "child-namespaces", "", "internal")
	fs.StringVar(&ca.Release, "child-release", "", "internal")
	fs.StringVar(&ca.Owner, "child-owner", "", "internal")
	fs.StringVar(&ca.Expect, "child-expect", "", "internal")
	fs.StringVar(&ca.Target, "child-target", "", "internal")
	fs.Int64Var(&ca.Page, "child-page", 0, "internal")
	fs.IntVar(&ca.Down, "child-down", 0, "internal")
	fs.BoolVar(&ca.Health, "child-health", false, "internal")
	fs.StringVar(&ca.Fleet, "child-fleet", "", "internal")
	_ = fs.Parse(os.Args[1:])
	if ca.Mode == "reconcile" {
		os.Exit(reconcileChild(ca))
	}
	if ca.Mode != "" {
		os.Exit(runChild(ca))
	}
	run := run
	if o.reconcile {
		run = runReconcile
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.scale <= 0 || o.scale > 1 {
		return fmt.Errorf("-scale %v: want a fraction in (0, 1]", o.scale)
	}
	shape, ok := shapes[o.fleet]
	if !ok {
		return fmt.Errorf("-fleet %q: want small or large", o.fleet)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tmp, err := os.MkdirTemp("", "chunkview-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	if !o.serve {
		launcher, err = startLauncher(ctx, tmp)
		if err != nil {
			return err
		}
		defer launcher.Close()
	}

	var bc *benchCluster
	if o.kubeconfig != "" {
		bc, err = connectCluster(o.kubeconfig)
	} else {
		fmt.Fprintln(os.Stderr, "cluster: starting kube-apiserver and etcd")
		bc, err = startCluster(tmp)
		benchServers = serverProcs()
	}
	if err != nil {
		return err
	}
	defer func() {
		if err := bc.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop cluster:", err)
		}
	}()
	fmt.Fprintf(os.Stderr, "fleet: generating the %s fleet, %d releases (seed %d)\n", shape.Name, fleetSize(shape, o.scale), o.seed)
	f, err := newFleet(shape, o.scale, o.seed)
	if err != nil {
		return err
	}
	var st *seedStats
	if f.present(ctx, bc.Client) {
		fmt.Fprintln(os.Stderr, "fleet: already on the cluster")
		st = seedStatsFromMarker(ctx, bc.Client)
	} else {
		st, err = f.seed(ctx, bc, o.writers)
		if err != nil {
			return err
		}
	}
	if o.serve {
		path := o.kcOut
		if path == "" {
			path = filepath.Join(os.TempDir(), "chunkview-bench.kubeconfig")
		}
		data, err := os.ReadFile(bc.Kubeconfig)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "serve: the fleet is ready; kubeconfig in %s; Ctrl-C stops the cluster\n", path)
		<-ctx.Done()
		return nil
	}

	bin := o.binary
	if bin == "" {
		bin = filepath.Join(tmp, "chunkview")
		fmt.Fprintln(os.Stderr, "build: go build -o", bin, ".")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build chunkview (run from the module's root): %w", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	rep := &report{Options: o, Fleet: f, Seed: st, Started: time.Now()}
	skip := map[string]bool{}
	for _, s := range strings.Split(o.skip, ",") {
		skip[strings.TrimSpace(s)] = true
	}
	m := &measurer{ctx: ctx, bc: bc, f: f, bin: bin, self: self, runs: o.runs}
	if !shape.HelmCopy {
		// The large fleet: its listings and the TUI, in a section of its own.
		return m.runLarge(rep, skip)
	}
	if !skip["list"] {
		if err := m.listing(rep); err != nil {
			return err
		}
	}
	if !skip["helmlist"] {
		if err := m.helmListing(rep); err != nil {
			return err
		}
	}
	if !skip["apis"] {
		if err := m.removedAPIs(rep); err != nil {
			return err
		}
	}
	if !skip["history"] {
		if err := m.history(rep); err != nil {
			return err
		}
	}
	if !skip["tui"] {
		if err := m.tui(rep); err != nil {
			return err
		}
	}
	if !skip["rw"] {
		rw, err := runReadWrite(ctx, bc, max(o.runs, 3))
		if err != nil {
			return err
		}
		rep.RW = rw
	}
	if !skip["storage"] {
		sr, err := measureStored(ctx, bc.Client, f)
		if err != nil {
			return err
		}
		if err := probeLimits(ctx, bc.Client, sr); err != nil {
			return err
		}
		rep.Stored = sr
	}
	rep.Finished = time.Now()
	text := rep.markdown()
	fmt.Println(text)
	return writeReport(o, text, smallReport)
}
