package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/chunkview/chunkview/cli"
)

var secretsGVR = corev1.SchemeGroupVersion.WithResource("secrets")

// procResult is one run of a measured process.
type procResult struct {
	Wall     time.Duration
	MaxRSS   int64 // bytes
	Requests int
	Bytes    int64 // response bytes received
	Stdout   []byte
	// CPU is the process's user and system time; ServerCPU, the API server's
	// and etcd's meanwhile (zero when they are not this program's children).
	CPU, ServerCPU time.Duration
}

// launcherClient talks to the launcher process (see hack/bench/launcher).
type launcherClient struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *json.Decoder
}

type launchRequest struct {
	Env  []string `json:"env"`
	Cmd  string   `json:"cmd"`
	Args []string `json:"args"`
}

type launchResponse struct {
	WallNs int64  `json:"wallNs"`
	MaxRSS int64  `json:"maxRSS"`
	CPUNs  int64  `json:"cpuNs"`
	Stdout []byte `json:"stdout"`
	Stderr []byte `json:"stderr"`
	Err    string `json:"err,omitempty"`
}

// startLauncher builds and starts the launcher.
func startLauncher(ctx context.Context, dir string) (*launcherClient, error) {
	bin := filepath.Join(dir, "launcher")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./hack/bench/launcher")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build the launcher (run from the module's root): %w", err)
	}
	cmd := exec.Command(bin)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &launcherClient{cmd: cmd, in: in, out: json.NewDecoder(out)}, nil
}

func (l *launcherClient) Close() error {
	_ = l.in.Close()
	return l.cmd.Wait()
}

// launcher runs the measured processes; set by run.
var launcher *launcherClient

// benchServers are the API server and etcd when this program started them; set
// by run.
var benchServers servers

// runProc runs a command to completion through the launcher and returns its wall
// time, peak resident memory (ru_maxrss of that process alone) and the request
// counts it printed.
func runProc(env []string, name string, args ...string) (procResult, error) {
	launcher.mu.Lock()
	defer launcher.mu.Unlock()
	req := launchRequest{Env: append(os.Environ(), env...), Cmd: name, Args: args}
	b, err := json.Marshal(req)
	if err != nil {
		return procResult{}, err
	}
	srv0 := benchServers.cpu()
	if _, err := launcher.in.Write(append(b, '\n')); err != nil {
		return procResult{}, fmt.Errorf("launcher: %w", err)
	}
	var resp launchResponse
	if err := launcher.out.Decode(&resp); err != nil {
		return procResult{}, fmt.Errorf("launcher: %w", err)
	}
	srv := benchServers.cpu().minus(srv0)
	stderr := bytes.NewBuffer(resp.Stderr)
	if resp.Err != "" {
		return procResult{}, fmt.Errorf("%s %s: %s\n%s", name, strings.Join(args, " "), resp.Err, tail(stderr.String(), 2000))
	}
	res := procResult{Wall: time.Duration(resp.WallNs), MaxRSS: resp.MaxRSS, Stdout: resp.Stdout,
		CPU: time.Duration(resp.CPUNs), ServerCPU: srv.apiserver + srv.etcd}
	found := false
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), cli.StatsPrefix)
		if !ok {
			continue
		}
		var rep cli.StatsReport
		if err := json.Unmarshal([]byte(line), &rep); err != nil {
			return res, fmt.Errorf("%s: stats line %q: %w", name, line, err)
		}
		res.Requests, res.Bytes, found = rep.Requests, rep.BytesReceived, true
	}
	if !found {
		return res, fmt.Errorf("%s %s printed no %q line on stderr (is %s=1 supported by this binary?)\n%s", name, strings.Join(args, " "), cli.StatsPrefix, cli.StatsEnv, tail(stderr.String(), 2000))
	}
	return res, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// summary is the median of several runs of one measurement.
type summary struct {
	Label   string
	Runs    int
	Wall    time.Duration // median
	WallMin time.Duration
	WallMax time.Duration
	Walls   []time.Duration // each run's, in the order run
	// CPU and ServerCPU are the medians of the runs' (see procResult).
	CPU, ServerCPU time.Duration
	MaxRSS         int64 // median of the runs' peaks
	Requests       int   // of the median run (they do not vary)
	Bytes          int64
	Count          int // releases or revisions returned
	Note           string
	// Items are the releases the first run printed, for a comparison whose
	// contenders must agree row for row (see sameItems).
	Items []listItem
}

func summarize(label string, runs []procResult) summary {
	s := summary{Label: label, Runs: len(runs)}
	if len(runs) == 0 {
		return s
	}
	walls := make([]time.Duration, len(runs))
	rss := make([]int64, len(runs))
	for i, r := range runs {
		walls[i], rss[i] = r.Wall, r.MaxRSS
	}
	s.Walls = append([]time.Duration(nil), walls...)
	cpu := make([]time.Duration, len(runs))
	srv := make([]time.Duration, len(runs))
	for i, r := range runs {
		cpu[i], srv[i] = r.CPU, r.ServerCPU
	}
	s.CPU, s.ServerCPU = median(cpu), median(srv)
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	s.Wall, s.WallMin, s.WallMax, s.MaxRSS = walls[len(walls)/2], walls[0], walls[len(walls)-1], rss[len(rss)/2]
	s.Requests, s.Bytes = runs[0].Requests, runs[0].Bytes
	return s
}

// countReleases reads the number of rows an -o json listing printed.
func countRows(out []byte) (int, error) {
	var v struct {
		Releases  []json.RawMessage `json:"releases"`
		Revisions []json.RawMessage `json:"revisions"`
		Index     *int              `json:"indexSecrets"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return 0, fmt.Errorf("output is not the JSON expected: %w: %s", err, tail(string(out), 300))
	}
	if v.Index != nil {
		return *v.Index, nil
	}
	return len(v.Releases) + len(v.Revisions), nil
}

// settle is the pause before each measured process.
const settle = 2 * time.Second

// contender is one process measured in a comparison.
type contender struct {
	Label string
	Env   []string
	Cmd   string
	Args  []string
	// Want is the number of rows it must print.
	Want int
}

// compare runs the contenders in turn, runs times, interleaved so that a slow
// moment of the shared machine does not fall on one of them only.
func compare(name string, runs int, cs []contender) ([]summary, error) {
	results := make([][]procResult, len(cs))
	counts := make([]int, len(cs))
	items := make([][]listItem, len(cs))
	for run := range runs {
		for i, c := range cs {
			// A moment for the API server to settle (and collect the garbage of a
			// peer's large list) before the next contender.
			time.Sleep(settle)
			fmt.Fprintf(os.Stderr, "%s: %s, run %d of %d\n", name, c.Label, run+1, runs)
			r, err := runProc(c.Env, c.Cmd, c.Args...)
			if err != nil {
				return nil, err
			}
			n, err := countRows(r.Stdout)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", name, c.Label, err)
			}
			if c.Want > 0 && n != c.Want {
				return nil, fmt.Errorf("%s: %s returned %d rows, want %d", name, c.Label, n, c.Want)
			}
			counts[i] = n
			if run == 0 {
				if items[i], err = releaseItems(r.Stdout); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", name, c.Label, err)
				}
			}
			r.Stdout = nil
			results[i] = append(results[i], r)
		}
	}
	out := make([]summary, len(cs))
	for i, c := range cs {
		out[i] = summarize(c.Label, results[i])
		out[i].Count, out[i].Items = counts[i], items[i]
	}
	return out, nil
}

// releaseItems reads the releases of an -o json listing, sorted by namespace and
// name; none for other outputs.
func releaseItems(out []byte) ([]listItem, error) {
	var v listOut
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("output is not the JSON expected: %w: %s", err, tail(string(out), 300))
	}
	sort.Slice(v.Releases, func(i, j int) bool {
		a, b := v.Releases[i], v.Releases[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return v.Releases, nil
}

// sameItems fails unless a and b list the same releases at the same revisions,
// statuses, charts and versions.
func sameItems(a, b summary) error {
	if len(a.Items) != len(b.Items) {
		return fmt.Errorf("%s listed %d releases, %s %d", a.Label, len(a.Items), b.Label, len(b.Items))
	}
	for i := range a.Items {
		if a.Items[i] != b.Items[i] {
			return fmt.Errorf("%s and %s disagree: %+v against %+v", a.Label, b.Label, a.Items[i], b.Items[i])
		}
	}
	return nil
}
