package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chunkview/chunkview/storage"
)

// The reconcile benchmark (make bench-reconcile): what OLMv1's steady-state
// reconcile costs the API server and the operator, over an OLMv1-shaped fleet,
// for each read path side by side. See rcchild.go for the read paths.

// rcPhase is the measurement of the fleet at one revision count.
type rcPhase struct {
	Revisions int
	Paths     []*rcPathResult
	// Stored is, by size class, the stored (gzip) and decoded (JSON) bytes of
	// every record of the fleet.
	Stored map[string][2]int64
}

// rcPathResult is what one read path cost.
type rcPathResult struct {
	Name, Label string
	Err         string                     // why it stopped, when it failed
	Runs        []rcCost                   // per run, the sum of a pass over the fleet
	Server      []cpuTimes                 // per run, the API server's and etcd's CPU meanwhile
	PerExt      [][]rcCost                 // per extension, per run
	Heap        int64                      // live heap the read path holds at steady state
	Startup     rcCost                     // what building it cost (a cache's list and watch)
	Warm        rcCost                     // what its warm-up reconciles cost
	Cache       *storage.ReleaseCacheStats // what a cached read path holds at the end
	Changed     bool                       // a dry run found something to change
	Decoded     *decodedCost               // set on the parent's own measurement only
}

// rcChild is a child process running one read path.
type rcChild struct {
	res *rcPathResult
	cmd *exec.Cmd
	in  io.WriteCloser
	out *json.Decoder
}

func startRCChild(self, kubeconfig, fleetFile, name, label string) (*rcChild, error) {
	cmd := exec.Command(self, "-child", "reconcile", "-child-kubeconfig", kubeconfig,
		"-child-namespace", olmSystemNamespace, "-child-target", name, "-child-fleet", fleetFile)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &rcChild{res: &rcPathResult{Name: name, Label: label}, cmd: cmd, in: in, out: json.NewDecoder(out)}, nil
}

func (c *rcChild) ask(req rcRequest) (rcAnswer, error) {
	b, _ := json.Marshal(req)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		return rcAnswer{}, fmt.Errorf("%s: %w", c.res.Name, err)
	}
	var ans rcAnswer
	if err := c.out.Decode(&ans); err != nil {
		return rcAnswer{}, fmt.Errorf("%s: %w", c.res.Name, err)
	}
	if ans.Startup != nil {
		c.res.Startup = *ans.Startup
	}
	return ans, nil
}

func (c *rcChild) close() {
	_, _ = c.in.Write([]byte(`{"op":"quit"}` + "\n"))
	_ = c.in.Close()
	_ = c.cmd.Wait()
}

// runReconcile is bench -reconcile.
func runReconcile(o options) error {
	shape, err := parseOLMFleet(o.olmFleet)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tmp, err := os.MkdirTemp("", "chunkview-bench-reconcile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintln(os.Stderr, "cluster: starting kube-apiserver and etcd")
	bc, err := startCluster(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err := bc.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop cluster:", err)
		}
	}()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	exts := olmFleet(shape, o.seed)
	if err := prepareOLM(ctx, bc, exts); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "fleet: sizing the large extensions")
	if err := fitFleet(ctx, exts); err != nil {
		return err
	}
	rep := &rcReport{Started: time.Now(), Shape: shape, Exts: exts, Runs: o.runs}
	prev := 0
	for _, revs := range []int{5, 10} {
		fmt.Fprintf(os.Stderr, "seed: revisions %d..%d of %d extensions\n", prev+1, revs, len(exts))
		if err := seedRevisions(ctx, bc, exts, prev+1, revs); err != nil {
			return err
		}
		prev = revs
		ph, err := measurePhase(ctx, bc, exts, revs, o.runs, self, tmp, o.paths)
		if err != nil {
			return err
		}
		rep.Phases = append(rep.Phases, ph)
		// The section so far, in case a later phase does not finish.
		rep.Finished = time.Now()
		if err := writeReconcileSection(o, rep.markdown()); err != nil {
			return err
		}
	}
	if rep.Decoded, err = measureDecodedStored(ctx, bc, exts); err != nil {
		return err
	}
	rep.Finished = time.Now()
	text := rep.markdown()
	fmt.Println(text)
	return writeReconcileSection(o, text)
}

// pathChosen reports whether -paths (comma-separated names, empty for all)
// chooses the read path name.
func pathChosen(paths, name string) bool {
	if paths == "" {
		return true
	}
	for _, p := range strings.Split(paths, ",") {
		if strings.TrimSpace(p) == name {
			return true
		}
	}
	return false
}

// parseOLMFleet parses -olm-fleet, "SMALL,LARGE".
func parseOLMFleet(s string) (olmFleetShape, error) {
	a, b, ok := strings.Cut(s, ",")
	small, err1 := strconv.Atoi(a)
	large, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || small < 1 || large < 1 {
		return olmFleetShape{}, fmt.Errorf("-olm-fleet %q: want SMALL,LARGE, each at least 1 (OLMv1's fleet: 30,10)", s)
	}
	return olmFleetShape{Small: small, Large: large}, nil
}

// measurePhase measures every read path over the fleet at revs revisions: one
// child per path, each warmed up on a small and a large extension, then runs
// passes over the fleet, the paths taking turns extension by extension (the
// order rotating), so that the shared machine's load falls on all alike.
func measurePhase(ctx context.Context, bc *benchCluster, exts []*extension, revs, runs int, self, dir, paths string) (*rcPhase, error) {
	ph := &rcPhase{Revisions: revs}
	var err error
	if ph.Stored, err = storedSizes(ctx, bc, exts); err != nil {
		return nil, err
	}
	fleetFile, err := writeFleetFile(dir, exts, revs)
	if err != nil {
		return nil, err
	}
	var children []*rcChild
	warm := map[*rcChild][]int{}
	defer func() {
		for _, c := range children {
			c.close()
		}
	}()
	for _, p := range readPaths {
		if !pathChosen(paths, p.name) {
			continue
		}
		c, err := startRCChild(self, bc.Kubeconfig, fleetFile, p.name, p.label)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
		warm[c] = warmUp(exts, p.warmAll)
		c.res.PerExt = make([][]rcCost, len(exts))
		ph.Paths = append(ph.Paths, c.res)
	}
	for _, c := range children {
		for _, i := range warm[c] {
			fmt.Fprintf(os.Stderr, "reconcile %d revisions: %s warms up on %s\n", revs, c.res.Name, exts[i].Name)
			ans, err := c.ask(rcRequest{Op: "reconcile", Ext: i})
			if err != nil {
				return nil, err
			}
			c.fail(ans.Err)
			c.res.Warm.add(ans.rcCost)
		}
	}
	srv := serverProcs()
	for run := range runs {
		fmt.Fprintf(os.Stderr, "reconcile %d revisions: pass %d of %d\n", revs, run+1, runs)
		if err := measurePass(children, exts, run, srv); err != nil {
			return nil, err
		}
	}
	for _, c := range children {
		ans, err := c.ask(rcRequest{Op: "heap"})
		if err != nil {
			return nil, err
		}
		c.res.Heap, c.res.Cache = ans.Heap, ans.Cache
	}
	return ph, ctx.Err()
}

// warmUp is the extensions a read path reconciles before it is measured: all of
// them, or the first small and the first large one, which fill the discovery
// caches.
func warmUp(exts []*extension, all bool) []int {
	out := []int{0}
	if all {
		for i := 1; i < len(exts); i++ {
			out = append(out, i)
		}
		return out
	}
	for i, e := range exts {
		if e.chunks > 0 {
			return append(out, i)
		}
	}
	return out
}

// fail records a read path's first failure; it is not asked again.
func (c *rcChild) fail(msg string) {
	if msg != "" && c.res.Err == "" {
		c.res.Err = msg
		fmt.Fprintf(os.Stderr, "reconcile: %s fails: %s\n", c.res.Name, msg)
	}
}

// measurePass reconciles every extension once through every read path that has
// not failed, adding the costs to run.
func measurePass(children []*rcChild, exts []*extension, run int, srv servers) error {
	for _, c := range children {
		c.res.Runs = append(c.res.Runs, rcCost{})
		c.res.Server = append(c.res.Server, cpuTimes{})
	}
	for i := range exts {
		for k := range children {
			c := children[(k+i+run)%len(children)]
			if c.res.Err != "" {
				continue
			}
			cpu0 := srv.cpu()
			ans, err := c.ask(rcRequest{Op: "reconcile", Ext: i})
			if err != nil {
				return err
			}
			d := srv.cpu().minus(cpu0)
			if ans.Err != "" {
				c.fail(ans.Err)
				continue
			}
			c.res.Runs[run].add(ans.rcCost)
			c.res.Server[run].apiserver += d.apiserver
			c.res.Server[run].etcd += d.etcd
			c.res.PerExt[i] = append(c.res.PerExt[i], ans.rcCost)
			c.res.Changed = c.res.Changed || ans.Changed
		}
	}
	runtime.GC()
	return nil
}
